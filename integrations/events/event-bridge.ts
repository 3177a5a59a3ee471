import { organizationOfNamespace } from '../../accounts/organizations.js';
import { BACKUP, DATABASE, NFS_SHARE } from '../../crds/data-services.js';
import { INTEGRATION } from '../../crds/integration.js';
import { STACK, STACK_EXECUTION, type StackExecution } from '../../crds/stacks.js';
import { STREAMING_CLUSTER } from '../../crds/streaming.js';
import { VAULT_CLUSTER } from '../../crds/vault-cluster.js';
import { VPC } from '../../crds/vpc.js';
import type { Logger } from '../../observability/logger.js';
import { Informer } from '../../control-plane/informer.js';
import type { KubeObject, ResourceType } from '../../control-plane/types.js';
import { isPlatformEventType, type PlatformEventType } from './catalogue.js';
import { publishEvent, type PublishDependencies } from './publisher.js';
import { restIdOf } from '../../crds/ids.js';

/** The event subject of each kind the bridge follows. */
const SUBJECTS: Readonly<Record<string, string>> = {
  Vpc: 'vpc',
  VaultCluster: 'vault_cluster',
  Integration: 'integration',
  Database: 'database',
  NfsShare: 'nfs_share',
  Backup: 'backup',
  Stack: 'stack',
  StreamingCluster: 'streaming_cluster',
};

const FOLLOWED_KINDS: readonly ResourceType[] = [
  VPC,
  VAULT_CLUSTER,
  INTEGRATION,
  DATABASE,
  NFS_SHARE,
  BACKUP,
  STACK,
  STACK_EXECUTION,
  STREAMING_CLUSTER,
];

export interface BridgeEvent {
  type: PlatformEventType;
  subject: string;
  payload: Record<string, unknown>;
}

type Status = { phase?: string; sealed?: boolean } | undefined;

const statusOf = (object: KubeObject): Status => object.status as Status;

/**
 * The catalogue events one change of a resource means: created, deleted, updated (a new
 * generation) and the state changes people page on (available, connected, error, sealed,
 * unsealed). Pure, so the table of cases is the specification.
 */
export function eventsForChange(
  previous: KubeObject | undefined,
  current: KubeObject | undefined,
): BridgeEvent[] {
  if ((current ?? previous)?.kind === STACK_EXECUTION.kind) {
    return executionEvents(previous as StackExecution | undefined, current as StackExecution | undefined);
  }
  const object = current ?? previous;
  const subject = object && SUBJECTS[object.kind];
  if (!object || !subject) return [];
  const types: string[] = [];
  if (!previous) types.push(`${subject}.created`);
  else if (!current) types.push(`${subject}.deleted`);
  else {
    if (current.metadata.generation !== previous.metadata.generation) types.push(`${subject}.updated`);
    const before = statusOf(previous);
    const after = statusOf(current);
    if (after?.phase !== before?.phase && after?.phase) types.push(`${subject}.${after.phase}`);
    if (before?.sealed === false && after?.sealed === true) types.push(`${subject}.sealed`);
    if (before?.sealed === true && after?.sealed === false) types.push(`${subject}.unsealed`);
  }
  const spec = object.spec as { name?: string } | undefined;
  const payload = {
    id: object.metadata.name,
    name: spec?.name ?? object.metadata.name,
    kind: object.kind,
    phase: statusOf(object)?.phase ?? null,
  };
  // A sealing changes both the phase and the flag: one event.
  return [...new Set(types)]
    .filter(isPlatformEventType)
    .map((type) => ({ type, subject: object.metadata.name, payload }));
}

/** What the end of a stack's execution means: applied, destroyed or failed. Dry runs change nothing. */
function executionEvents(
  previous: StackExecution | undefined,
  current: StackExecution | undefined,
): BridgeEvent[] {
  const spec = current?.spec;
  const ended = current?.status?.status;
  if (!spec || spec.dryRun || ended === previous?.status?.status) return [];
  const verb =
    ended === 'failed'
      ? 'failed'
      : ended === 'completed'
        ? spec.operation === 'apply'
          ? 'applied'
          : 'destroyed'
        : undefined;
  const type = verb && `stack.${verb}`;
  if (!type || !isPlatformEventType(type)) return [];
  return [
    {
      type,
      subject: spec.stack,
      payload: {
        id: restIdOf(spec.stack),
        kind: 'Stack',
        execution_id: restIdOf(current.metadata.name),
        operation: spec.operation,
        version: spec.basedOnVersion,
        ...(current.status?.error ? { error: current.status.error } : {}),
      },
    },
  ];
}

export interface EventBridge {
  /** Resolves once every followed kind is listed: changes from then on are published. */
  synced(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Publishes the catalogue events of VPCs, vault clusters, integrations, databases, shares,
 * backups, stacks and streaming clusters as their objects
 * change, whoever changed them (the REST API, kubectl, a controller). Run it once per platform
 * (in the leading operator, or in serve): each replica would publish every change again. What
 * exists when it starts is not announced again; changes while no bridge ran are not replayed.
 */
export function startEventBridge(
  deps: PublishDependencies & { logger: Logger; kinds?: readonly ResourceType[] },
): EventBridge {
  const log = deps.logger.child({ component: 'event-bridge' });
  let publishing: Promise<void> = Promise.resolve();
  const publish = (namespace: string | undefined, events: BridgeEvent[]) => {
    const organizationId = organizationOfNamespace(namespace);
    if (!organizationId || events.length === 0) return;
    // One chain keeps the events of one object in the order they happened.
    publishing = publishing.then(async () => {
      for (const event of events) {
        try {
          await publishEvent(deps, { organizationId, ...event });
        } catch (error) {
          log.error({ err: error, type: event.type, subject: event.subject }, 'event not published');
        }
      }
    });
  };
  const informers = (deps.kinds ?? FOLLOWED_KINDS).map((type) => {
    const informer = new Informer(deps.store, type, { logger: log });
    // The first list replays what already exists: that is not news.
    const live = () => informer.hasSynced;
    informer.addHandlers({
      onAdd: (object) => live() && publish(object.metadata.namespace, eventsForChange(undefined, object)),
      onUpdate: (previous, current) =>
        publish(current.metadata.namespace, eventsForChange(previous, current)),
      onDelete: (object) => live() && publish(object.metadata.namespace, eventsForChange(object, undefined)),
    });
    informer.start();
    return informer;
  });
  return {
    async synced() {
      await Promise.all(informers.map((informer) => informer.waitForSync()));
    },
    async stop() {
      await Promise.all(informers.map((informer) => informer.stop()));
      await publishing;
    },
  };
}
