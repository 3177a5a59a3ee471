/**
 * What the streaming reconcilers share: what one look at a cluster, topic or user works with, and
 * for a topic or user, its status writes and its removal from the brokers.
 */
import type { StreamingConfig } from '../../config/streaming.js';
import type { ResourceType } from '../../control-plane/types.js';
import type { DataPlane } from '../../data-plane/data-plane.js';
import type { WorkloadRuntime } from '../../workloads/runtime.js';
import type { StreamingCluster, StreamingTopic, StreamingUser } from '../../crds/streaming.js';
import type { ReconcileContext } from '../runtime/controller.js';
import { holdsFinalizer, removeFinalizer } from '../runtime/finalizers.js';
import { writeStatusIfChanged } from '../runtime/status.js';
import { liveCluster } from './children.js';

export interface StreamingControllerOptions {
  runtime: WorkloadRuntime;
  database: DataPlane;
  /** Seals the passwords generated for users applied with kubectl. */
  platformKey: Buffer;
  /** The platform's regions, which a cluster must name one of. */
  regions: readonly string[];
  config: StreamingConfig;
}

/** How long a child waits before looking again at a cluster that is not running yet. */
export const WAIT_FOR_CLUSTER_MS = 1_000;

/** What one reconcile of a cluster, a topic or a user works with. */
export interface StreamingRun {
  context: ReconcileContext;
  options: StreamingControllerOptions;
  namespace: string;
  /** The generation and moment its status is written with. */
  status: { generation: number | undefined; now: Date };
}

export function streamingRun(
  object: StreamingCluster | StreamingTopic | StreamingUser,
  namespace: string,
  context: ReconcileContext,
  options: StreamingControllerOptions,
): StreamingRun {
  return {
    context,
    options,
    namespace,
    status: { generation: object.metadata.generation, now: context.clock.now() },
  };
}

/** Writes a child's status, made by `statusOf` from the outcome of a look, when it changed. */
export function statusWriter<T extends StreamingTopic | StreamingUser, Outcome>(
  type: ResourceType,
  statusOf: (
    current: T['status'],
    outcome: Outcome,
    context: StreamingRun['status'],
  ) => NonNullable<T['status']>,
): (child: T, outcome: Outcome, run: StreamingRun) => Promise<void> {
  return async (child, outcome, run) => {
    await writeStatusIfChanged<T>(
      run.context.store,
      type,
      child,
      statusOf(child.status, outcome, run.status),
    );
  };
}

/**
 * Lets a deleted child go: `drop` takes it off its cluster's brokers unless the cluster is going
 * or gone (removing a cluster drops its children's data), and `forget` removes what the platform
 * keeps of it besides.
 */
export async function removeChild(
  type: ResourceType,
  child: StreamingTopic | StreamingUser,
  run: StreamingRun,
  drop: (cluster: StreamingCluster) => Promise<void>,
  forget?: () => Promise<void>,
): Promise<void> {
  if (!holdsFinalizer(child)) return;
  const owner = await liveCluster(run.context.store, run.namespace, child.spec!.cluster);
  if (owner) await drop(owner);
  await forget?.();
  await removeFinalizer(run.context.store, type, child);
}
