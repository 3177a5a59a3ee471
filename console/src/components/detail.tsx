/** One resource's page: its title, the way back to its list, its facts, and deleting it. */
import type { ComponentChildren } from 'preact';
import { ConfirmButton } from './form.tsx';
import { Link } from './link.tsx';
import { ErrorNotice, Page } from './ui.tsx';

/** Deleting the resource from its page header: asks `question` first; off while it runs or unloaded. */
export interface DeleteAction {
  label: string;
  question: string;
  busy: boolean;
  loaded: boolean;
  run: () => Promise<void>;
}

export function DetailPage({
  title,
  backHref,
  backLabel,
  error,
  remove,
  children,
}: {
  title: string;
  backHref: string;
  backLabel: string;
  error: unknown;
  remove?: DeleteAction;
  children: ComponentChildren;
}) {
  return (
    <Page
      title={title}
      actions={
        remove && (
          <ConfirmButton
            question={remove.question}
            disabled={remove.busy || !remove.loaded}
            onConfirm={() => void remove.run()}
          >
            {remove.label}
          </ConfirmButton>
        )
      }
    >
      <p>
        <Link href={backHref}>{backLabel}</Link>
      </p>
      <ErrorNotice error={error} />
      {children}
    </Page>
  );
}

/** A resource's facts as a description list: each term with its value. */
export function Facts({ facts }: { facts: readonly (readonly [string, ComponentChildren])[] }) {
  return (
    <dl class="facts">
      {facts.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
