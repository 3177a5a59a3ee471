/** VPCs: the list with a create form, and a VPC's parts (subnets, security groups, routes, gateways). */
import { useState } from 'preact/hooks';
import { Link } from '../components/link.tsx';
import {
  EmptyRow,
  ErrorNotice,
  Field,
  formatDate,
  Page,
  StatusBadge,
  useAction,
  useLoad,
} from '../components/ui.tsx';
import { navigate } from '../router.ts';
import { api } from '../session.ts';

/** The families whose events change what the VPC pages show. */
const VPC_EVENTS = ['vpc', 'subnet', 'security_group', 'route_table', 'internet_gateway', 'nat_gateway'];
/** The platform's default regions, offered as suggestions; an operator's own (`CLOUDPLANE_REGIONS`) are typed. */
const DEFAULT_REGIONS = ['us-east-1', 'us-west-2', 'eu-west-1'];

function CreateVpc({ onCreated }: { onCreated: (id: string) => void }) {
  const [name, setName] = useState('');
  const [cidr, setCidr] = useState('10.0.0.0/16');
  const [region, setRegion] = useState(DEFAULT_REGIONS[0]!);
  const create = useAction(async () => {
    const { data } = await api.POST('/api/v1/vpcs', { body: { name, cidr_block: cidr, region } });
    onCreated(data!.id!);
  });
  return (
    <form
      class="card form-grid"
      aria-labelledby="create-vpc"
      onSubmit={(event) => {
        event.preventDefault();
        void create.run();
      }}
    >
      <h2 id="create-vpc">Create a VPC</h2>
      <Field id="vpc-name" label="Name">
        {() => (
          <input
            id="vpc-name"
            required
            value={name}
            onInput={(event) => setName(event.currentTarget.value)}
          />
        )}
      </Field>
      <Field id="vpc-cidr" label="CIDR block" hint="A private IPv4 range from /16 to /28, e.g. 10.0.0.0/16.">
        {(describedBy) => (
          <input
            id="vpc-cidr"
            required
            aria-describedby={describedBy}
            value={cidr}
            onInput={(event) => setCidr(event.currentTarget.value)}
          />
        )}
      </Field>
      <Field id="vpc-region" label="Region">
        {() => (
          <>
            <input
              id="vpc-region"
              list="vpc-regions"
              required
              value={region}
              onInput={(event) => setRegion(event.currentTarget.value)}
            />
            <datalist id="vpc-regions">
              {DEFAULT_REGIONS.map((choice) => (
                <option key={choice} value={choice} />
              ))}
            </datalist>
          </>
        )}
      </Field>
      <ErrorNotice error={create.error} />
      <div class="form-actions">
        <button type="submit" class="primary" disabled={create.busy}>
          Create VPC
        </button>
      </div>
    </form>
  );
}

export function Vpcs() {
  const vpcs = useLoad(async () => (await api.GET('/api/v1/vpcs')).data ?? [], [], VPC_EVENTS);
  return (
    <Page title="VPCs">
      <CreateVpc onCreated={(id) => navigate(`/vpcs/${id}`)} />
      <ErrorNotice error={vpcs.error} />
      <div
        class="table-wrap"
        tabIndex={0}
        role="region"
        aria-label="Your organization's virtual private clouds"
      >
        <table>
          <caption>Your organization's virtual private clouds</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">CIDR block</th>
              <th scope="col">Region</th>
              <th scope="col">Status</th>
              <th scope="col">Subnets</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {vpcs.data?.length === 0 && <EmptyRow columns={6}>No VPC yet.</EmptyRow>}
            {vpcs.data?.map((vpc) => (
              <tr key={vpc.id}>
                <td>
                  <Link href={`/vpcs/${vpc.id}`}>{vpc.name}</Link>
                </td>
                <td>
                  <code>{vpc.cidr_block}</code>
                </td>
                <td>{vpc.region}</td>
                <td>
                  <StatusBadge status={vpc.status} />
                </td>
                <td>{vpc.subnet_count}</td>
                <td>{formatDate(vpc.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Page>
  );
}

function CreateSubnet({
  vpcId,
  region,
  onCreated,
}: {
  vpcId: string;
  region: string;
  onCreated: () => void;
}) {
  const [name, setName] = useState('');
  const [cidr, setCidr] = useState('');
  const [zone, setZone] = useState(`${region}a`);
  const create = useAction(async () => {
    await api.POST('/api/v1/vpcs/{id}/subnets', {
      params: { path: { id: vpcId } },
      body: { name, cidr_block: cidr, availability_zone: zone },
    });
    setName('');
    setCidr('');
    onCreated();
  });
  return (
    <form
      class="card form-grid"
      aria-labelledby="create-subnet"
      onSubmit={(event) => {
        event.preventDefault();
        void create.run();
      }}
    >
      <h3 id="create-subnet">Add a subnet</h3>
      <Field id="subnet-name" label="Subnet name">
        {() => (
          <input
            id="subnet-name"
            required
            value={name}
            onInput={(event) => setName(event.currentTarget.value)}
          />
        )}
      </Field>
      <Field id="subnet-cidr" label="Subnet CIDR block" hint="Inside the VPC's range, e.g. 10.0.1.0/24.">
        {(describedBy) => (
          <input
            id="subnet-cidr"
            required
            aria-describedby={describedBy}
            value={cidr}
            onInput={(event) => setCidr(event.currentTarget.value)}
          />
        )}
      </Field>
      <Field id="subnet-zone" label="Availability zone">
        {() => (
          <input
            id="subnet-zone"
            required
            value={zone}
            onInput={(event) => setZone(event.currentTarget.value)}
          />
        )}
      </Field>
      <ErrorNotice error={create.error} />
      <div class="form-actions">
        <button type="submit" class="primary" disabled={create.busy}>
          Add subnet
        </button>
      </div>
    </form>
  );
}

export function VpcDetail({ id }: { id: string }) {
  const path = { params: { path: { id } } };
  const vpc = useLoad(async () => (await api.GET('/api/v1/vpcs/{id}', path)).data, [id], VPC_EVENTS);
  const parts = useLoad(
    async () => {
      const [subnets, groups, tables, internet, nat] = await Promise.all([
        api.GET('/api/v1/vpcs/{id}/subnets', path),
        api.GET('/api/v1/vpcs/{id}/security-groups', path),
        api.GET('/api/v1/vpcs/{id}/route-tables', path),
        api.GET('/api/v1/vpcs/{id}/internet-gateways', path),
        api.GET('/api/v1/vpcs/{id}/nat-gateways', path),
      ]);
      return {
        subnets: subnets.data ?? [],
        groups: groups.data ?? [],
        tables: tables.data ?? [],
        internet: internet.data ?? [],
        nat: nat.data ?? [],
      };
    },
    [id],
    VPC_EVENTS,
  );
  const remove = useAction(async () => {
    await api.DELETE('/api/v1/vpcs/{id}', path);
    navigate('/vpcs');
  });
  const detail = vpc.data;
  return (
    <Page
      title={detail?.name ? `VPC ${detail.name}` : 'VPC'}
      actions={
        <button
          type="button"
          class="danger"
          disabled={remove.busy || !detail}
          onClick={() => {
            if (confirm(`Delete the VPC ${detail?.name}?`)) void remove.run();
          }}
        >
          Delete VPC
        </button>
      }
    >
      <p>
        <Link href="/vpcs">← All VPCs</Link>
      </p>
      <ErrorNotice error={vpc.error ?? remove.error} />
      {detail && (
        <dl class="facts">
          <div>
            <dt>Status</dt>
            <dd>
              <StatusBadge status={detail.status} />
            </dd>
          </div>
          <div>
            <dt>CIDR block</dt>
            <dd>
              <code>{detail.cidr_block}</code>
            </dd>
          </div>
          <div>
            <dt>Region</dt>
            <dd>{detail.region}</dd>
          </div>
          <div>
            <dt>ID</dt>
            <dd>
              <code>{detail.id}</code>
            </dd>
          </div>
          <div>
            <dt>Created</dt>
            <dd>{formatDate(detail.created_at)}</dd>
          </div>
        </dl>
      )}
      <ErrorNotice error={parts.error} />
      <h2>Subnets</h2>
      <div class="table-wrap" tabIndex={0} role="region" aria-label="Subnets">
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">CIDR block</th>
              <th scope="col">Zone</th>
              <th scope="col">Free addresses</th>
            </tr>
          </thead>
          <tbody>
            {parts.data?.subnets.length === 0 && <EmptyRow columns={4}>No subnet yet.</EmptyRow>}
            {parts.data?.subnets.map((subnet) => (
              <tr key={subnet.id}>
                <td>{subnet.name}</td>
                <td>
                  <code>{subnet.cidr_block}</code>
                </td>
                <td>{subnet.availability_zone}</td>
                <td>{subnet.available_ip_count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {detail && <CreateSubnet vpcId={id} region={detail.region ?? ''} onCreated={parts.reload} />}
      <h2>Security groups</h2>
      <ul class="plain-list">
        {parts.data?.groups.map((group) => (
          <li key={group.id}>
            <strong>{group.name}</strong>{' '}
            {group.description && <span class="muted">— {group.description}</span>}{' '}
            <span class="muted">
              ({group.inbound_rules?.length ?? 0} inbound, {group.outbound_rules?.length ?? 0} outbound rules)
            </span>
          </li>
        ))}
        {parts.data?.groups.length === 0 && <li class="muted">None.</li>}
      </ul>
      <h2>Route tables</h2>
      <ul class="plain-list">
        {parts.data?.tables.map((table) => (
          <li key={table.id}>
            <strong>{table.name ?? table.id}</strong>{' '}
            <span class="muted">
              ({table.routes?.length ?? 0} routes, {table.subnet_associations ?? 0} subnets)
            </span>
          </li>
        ))}
        {parts.data?.tables.length === 0 && <li class="muted">None.</li>}
      </ul>
      <h2>Gateways</h2>
      <ul class="plain-list">
        {parts.data?.internet.map((gateway) => (
          <li key={gateway.id}>
            Internet gateway <code>{gateway.id}</code> <StatusBadge status={gateway.status} />
          </li>
        ))}
        {parts.data?.nat.map((gateway) => (
          <li key={gateway.id}>
            NAT gateway <code>{gateway.id}</code> <StatusBadge status={gateway.status} />{' '}
            {gateway.public_ip && <span class="muted">{gateway.public_ip}</span>}
          </li>
        ))}
        {parts.data && parts.data.internet.length + parts.data.nat.length === 0 && (
          <li class="muted">None.</li>
        )}
      </ul>
    </Page>
  );
}
