/**
 * The shell every VPC part's controller shares: find the part and its VPC, make the VPC its
 * controlling owner, run the kind's own checks and convergence, and report the outcome in status.
 * A kind plugs in what differs: its validation, what else its status says, and what its finalizer
 * cleans up outside the store.
 */
import type { KindDescriptor } from '../../control-plane/kind-descriptor.js';
import { VPC, type PartStatus, type Vpc, type VpcPart } from '../../crds/vpc.js';
import { setCondition } from '../runtime/conditions.js';
import type { ReconcileContext, ReconcileResult, Reconciler } from '../runtime/controller.js';
import { TerminalError } from '../runtime/controller.js';
import { isStoreError } from '../../control-plane/types.js';
import { writeStatusIfChanged } from '../runtime/status.js';
import { isOwnedBy, withOwner } from './parts.js';
import { VpcValidationError } from './validation.js';

/** Ready condition reasons shared by the parts. */
export const PartReason = {
  Available: 'Available',
  InvalidSpec: 'InvalidSpec',
  VpcNotFound: 'VpcNotFound',
  VpcDeleting: 'VpcDeleting',
} as const;

/** How often a part whose VPC does not exist yet looks again. */
const VPC_MISSING_RETRY_MS = 30_000;

export interface PartBehaviour<T extends VpcPart> {
  type: KindDescriptor;
  /** Set while something outside the store (a claim, an address) must be released on deletion. */
  finalizer?: string;
  /**
   * Checks the part against its VPC and converges what it holds; answers the status fields
   * beyond phase and conditions. Throws VpcValidationError or TerminalError for what the user must fix.
   */
  converge(
    part: T,
    vpc: Vpc,
    context: ReconcileContext,
  ): Promise<Omit<NonNullable<T['status']>, keyof PartStatus>>;
  /** Releases what the finalizer guards. */
  finalize?(part: T, context: ReconcileContext): Promise<void>;
}

async function removeFinalizer<T extends VpcPart>(
  behaviour: PartBehaviour<T>,
  part: T,
  context: ReconcileContext,
): Promise<void> {
  const { finalizer } = behaviour;
  if (!finalizer || !part.metadata.finalizers?.includes(finalizer)) return;
  await behaviour.finalize?.(part, context);
  await context.store.update(behaviour.type, {
    ...part,
    metadata: {
      ...part.metadata,
      finalizers: part.metadata.finalizers.filter((entry) => entry !== finalizer),
    },
  });
}

/**
 * The part's VPC, from the cache (each part controller declares `reads: [VPC]`, `PART_READS`).
 * On a miss, from the store: a VPC created together with its parts may not have reached the
 * VPC informer yet, and a miss is rare enough that the extra read costs nothing.
 */
async function readVpc(
  context: ReconcileContext,
  namespace: string | undefined,
  name: string,
): Promise<Vpc | undefined> {
  const cached = context.cache.get<Vpc>(VPC, namespace, name);
  if (cached !== undefined) return cached;
  try {
    return await context.store.get<Vpc>(VPC, namespace, name);
  } catch (error) {
    if (isStoreError(error, 'NotFound')) return undefined;
    throw error;
  }
}

/** What every part controller reads besides its own kind. */
export const PART_READS = [VPC];

export function partReconciler<T extends VpcPart>(behaviour: PartBehaviour<T>): Reconciler {
  const { type } = behaviour;
  const writeReady = async (
    part: T,
    context: ReconcileContext,
    ready: { status: 'True' | 'False'; reason: string; message: string },
    extra: object,
  ) => {
    const generation = part.metadata.generation;
    const status = {
      ...part.status,
      ...extra,
      phase: ready.status === 'True' ? 'available' : (part.status?.phase ?? 'pending'),
      observedGeneration: generation,
      conditions: setCondition(
        part.status?.conditions,
        { type: 'Ready', ...ready, observedGeneration: generation },
        context.clock.now(),
      ),
    } as NonNullable<T['status']>;
    await writeStatusIfChanged(context.store, type, part, status);
  };

  return async ({ namespace, name }, context): Promise<ReconcileResult | void> => {
    let part = context.cache.get<T>(type, namespace, name);
    if (part === undefined) return;
    if (part.metadata.deletionTimestamp) return removeFinalizer(behaviour, part, context);

    const vpcId = part.spec!.vpcRef;
    const vpc = await readVpc(context, namespace, vpcId);
    if (!vpc) {
      await writeReady(
        part,
        context,
        {
          status: 'False',
          reason: PartReason.VpcNotFound,
          message: `spec.vpcRef: VPC "${vpcId}" does not exist`,
        },
        {},
      );
      return { requeueAfterMs: VPC_MISSING_RETRY_MS };
    }
    // The VPC's own teardown removes this part; adopting it now would only hold that up.
    if (vpc.metadata.deletionTimestamp) return;

    const finalizers = part.metadata.finalizers ?? [];
    const needsFinalizer = behaviour.finalizer !== undefined && !finalizers.includes(behaviour.finalizer);
    if (!isOwnedBy(part, vpc) || needsFinalizer) {
      const owned = withOwner(part, vpc);
      part = await context.store.update(type, {
        ...owned,
        metadata: {
          ...owned.metadata,
          finalizers: needsFinalizer ? [...finalizers, behaviour.finalizer!] : finalizers,
        },
      });
    }

    let extra: object;
    try {
      extra = await behaviour.converge(part, vpc, context);
    } catch (error) {
      if (error instanceof VpcValidationError)
        throw new TerminalError(PartReason.InvalidSpec, error.message, 'failed');
      throw error;
    }
    // The message is what `kubectl describe` and the Available event show: never empty.
    await writeReady(
      part,
      context,
      { status: 'True', reason: PartReason.Available, message: `available in VPC ${vpc.metadata.name}` },
      extra,
    );
  };
}
