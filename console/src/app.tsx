/** The console: the pages before sign-in, and the signed-in shell with its navigation. */
import type { JSX } from 'preact';
import { useEffect } from 'preact/hooks';
import { Link } from './components/link.tsx';
import { ErrorNotice, useAction } from './components/ui.tsx';
import { startLive, stopLive, useConnection } from './live.ts';
import { ForgotPassword, ResetPassword, SignIn, SignUp, VerifyEmail } from './pages/auth.tsx';
import { ApiKeys } from './pages/api-keys.tsx';
import { IntegrationDetail, Integrations } from './pages/integrations.tsx';
import { AcceptInvitation } from './pages/invitation.tsx';
import { NfsShares } from './pages/nfs-shares.tsx';
import { DatabaseDetail, Databases } from './pages/databases.tsx';
import { StackDetail, Stacks } from './pages/stacks.tsx';
import {
  ConsumerGroupLag,
  StreamingClusterDetail,
  StreamingClusters,
  TopicMessages,
} from './pages/streaming.tsx';
import { ConnectorsPage, SchemaRegistryPage } from './pages/streaming-extensions.tsx';
import { Team } from './pages/team.tsx';
import { Usage } from './pages/usage.tsx';
import { VaultClusters, VaultDetail } from './pages/vault.tsx';
import { VpcDetail, Vpcs } from './pages/vpcs.tsx';
import { matchPath, navigate, useLocation } from './router.ts';
import { signOut, switchOrganization, useSession, type Me } from './session.ts';

interface Section {
  label: string;
  href: string;
  pages: { path: string; render: (params: Record<string, string>) => JSX.Element }[];
}

/** The families the console covers, in the navigation's order. */
const SECTIONS: readonly Section[] = [
  {
    label: 'VPCs',
    href: '/vpcs',
    pages: [
      { path: '/vpcs', render: () => <Vpcs /> },
      { path: '/vpcs/:id', render: ({ id }) => <VpcDetail id={id!} /> },
    ],
  },
  {
    label: 'Vault',
    href: '/vaults',
    pages: [
      { path: '/vaults', render: () => <VaultClusters /> },
      { path: '/vaults/:id', render: ({ id }) => <VaultDetail id={id!} /> },
    ],
  },
  {
    label: 'Databases',
    href: '/databases',
    pages: [
      { path: '/databases', render: () => <Databases /> },
      { path: '/databases/:id', render: ({ id }) => <DatabaseDetail id={id!} /> },
    ],
  },
  { label: 'NFS shares', href: '/nfs-shares', pages: [{ path: '/nfs-shares', render: () => <NfsShares /> }] },
  {
    label: 'Streaming',
    href: '/streaming-clusters',
    pages: [
      { path: '/streaming-clusters', render: () => <StreamingClusters /> },
      { path: '/streaming-clusters/:id', render: ({ id }) => <StreamingClusterDetail id={id!} /> },
      {
        path: '/streaming-clusters/:id/topics/:topic',
        render: ({ id, topic }) => <TopicMessages clusterId={id!} topic={topic!} />,
      },
      {
        path: '/streaming-clusters/:id/groups/:group',
        render: ({ id, group }) => <ConsumerGroupLag clusterId={id!} group={group!} />,
      },
      {
        path: '/streaming-clusters/:id/schema-registry',
        render: ({ id }) => <SchemaRegistryPage clusterId={id!} />,
      },
      { path: '/streaming-clusters/:id/connectors', render: ({ id }) => <ConnectorsPage clusterId={id!} /> },
    ],
  },
  {
    label: 'Stacks',
    href: '/stacks',
    pages: [
      { path: '/stacks', render: () => <Stacks /> },
      { path: '/stacks/:id', render: ({ id }) => <StackDetail id={id!} /> },
    ],
  },
  {
    label: 'Integrations',
    href: '/integrations',
    pages: [
      { path: '/integrations', render: () => <Integrations /> },
      { path: '/integrations/:id', render: ({ id }) => <IntegrationDetail id={id!} /> },
    ],
  },
  { label: 'Usage', href: '/usage', pages: [{ path: '/usage', render: () => <Usage /> }] },
  { label: 'Team', href: '/team', pages: [{ path: '/team', render: () => <Team /> }] },
  { label: 'API keys', href: '/api-keys', pages: [{ path: '/api-keys', render: () => <ApiKeys /> }] },
];

/** Pages a mail links to, outside the navigation. */
const LINKED: Section = {
  label: 'Invitation',
  href: '/accept-invitation',
  pages: [{ path: '/accept-invitation', render: () => <AcceptInvitation /> }],
};

function route(path: string): { section: Section; page: JSX.Element } | undefined {
  for (const section of [...SECTIONS, LINKED]) {
    for (const page of section.pages) {
      const params = matchPath(page.path, path);
      if (params) return { section, page: page.render(params) };
    }
  }
  return undefined;
}

function OrganizationSwitcher({ me }: { me: Me }) {
  const change = useAction(switchOrganization);
  if (me.organizations.length < 2) {
    const only = me.organizations[0];
    return only ? <span class="org-name">{only.name}</span> : null;
  }
  return (
    <div class="org-switcher">
      <label for="organization">Organization</label>
      <select
        id="organization"
        value={me.current_organization_id}
        disabled={change.busy}
        onChange={(event) => void change.run(event.currentTarget.value)}
      >
        {me.organizations.map((organization) => (
          <option key={organization.id} value={organization.id}>
            {organization.name}
          </option>
        ))}
      </select>
      <ErrorNotice error={change.error} />
    </div>
  );
}

function ConnectionState() {
  const state = useConnection();
  const words = { live: 'Live', connecting: 'Connecting…', offline: 'Offline, retrying' } as const;
  return (
    <span class={`connection connection-${state}`} role="status" title="Updates from the event stream">
      {words[state]}
    </span>
  );
}

function Shell({ me }: { me: Me }) {
  const { path } = useLocation();
  useEffect(() => {
    startLive();
    return stopLive;
  }, [me.current_organization_id]);
  useEffect(() => {
    if (path === '/' || path === '/sign-in' || path === '/sign-up') navigate('/vpcs', { replace: true });
  }, [path]);
  const found = route(path);
  return (
    <div class="shell">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <Link href="/vpcs" class="brand">
          cloudplane
        </Link>
        <div class="topbar-end">
          <ConnectionState />
          {/* A new organization's resources: the page remounts under its key. */}
          <OrganizationSwitcher me={me} />
          <span class="user-email">{me.email}</span>
          <button type="button" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <nav class="sidenav" aria-label="Families">
        <ul>
          {SECTIONS.map((section) => (
            <li key={section.href}>
              <Link href={section.href} aria-current={found?.section === section ? 'page' : undefined}>
                {section.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" class="content" key={me.current_organization_id}>
        {found ? (
          found.page
        ) : (
          <section class="page">
            <h1>Not found</h1>
            <p>
              No page at <code>{path}</code>. <Link href="/vpcs">Go to VPCs</Link>
            </p>
          </section>
        )}
      </main>
    </div>
  );
}

export function App() {
  const session = useSession();
  const { path } = useLocation();
  if (path === '/verify-email' && session.status !== 'signed-in') return <VerifyEmail />;
  if (path === '/reset-password') return <ResetPassword />;
  if (session.status === 'starting') {
    return (
      <main class="auth" id="main">
        <p role="status">Loading…</p>
      </main>
    );
  }
  if (session.status === 'signed-in') return <Shell me={session.me} />;
  if (path === '/sign-up') return <SignUp />;
  if (path === '/forgot-password') return <ForgotPassword />;
  return <SignIn notice={session.notice} />;
}
