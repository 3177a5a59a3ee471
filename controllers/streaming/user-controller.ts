import {
  STREAMING_CLUSTER,
  STREAMING_USER,
  type StreamingCluster,
  type StreamingUser,
} from '../../crds/streaming.js';
import { WorkloadError } from '../../workloads/runtime.js';
import type { ScramCredential } from '../../security/scram.js';
import type { ControllerDefinition, Reconciler } from '../runtime/controller.js';
import { TerminalError } from '../runtime/controller.js';
import { addFinalizer } from '../runtime/finalizers.js';
import { acceptsChildren, adoptedByCluster, childrenWatch, liveCluster } from './children.js';
import {
  streamingRun,
  removeChild,
  statusWriter,
  WAIT_FOR_CLUSTER_MS,
  type StreamingControllerOptions,
  type StreamingRun,
} from './streaming-run.js';
import {
  DuplicateStreamingUserError,
  generatePassword,
  readUserCredential,
  removeUserCredential,
  storeUserPassword,
  type StreamingUserKey,
} from './credentials.js';
import { clusterNotFound, userSpecProblem, userStatus, waitingForCluster } from './engine.js';
import { clusterWorkload } from './workload-of.js';

/** Writes the user's status from what came of this look. */
const writeUserStatus = statusWriter<StreamingUser, Parameters<typeof userStatus>[1]>(
  STREAMING_USER,
  userStatus,
);

/** The user's key among the platform's streaming credentials. */
const keyOf = (user: StreamingUser, namespace: string): StreamingUserKey => ({
  namespace,
  cluster: user.spec!.cluster,
  username: user.spec!.name,
});

/** Drops the user from its brokers and its credential, and lets it go. */
function removeUser(user: StreamingUser, run: StreamingRun): Promise<void> {
  const name = user.spec!.name;
  return removeChild(
    STREAMING_USER,
    user,
    run,
    (cluster) => run.options.runtime.streaming.removeUser(clusterWorkload(cluster), name),
    async () => {
      await removeUserCredential(run.options.database, keyOf(user, run.namespace));
      run.context.logger.info({ user: name }, 'streaming user removed');
    },
  );
}

/**
 * Whether the user's cluster is going: it takes its users' credentials with it (and then the
 * users), so one stored now would outlive it. The cache may not have seen the deletion yet, so
 * the store is asked.
 */
async function clusterGoing(cluster: StreamingCluster, run: StreamingRun): Promise<boolean> {
  if (cluster.metadata.deletionTimestamp) return true;
  return !(await liveCluster(run.context.store, run.namespace, cluster.metadata.name));
}

/** The user's credential; a user applied with kubectl gets a generated password the first time. */
async function credentialOf(user: StreamingUser, run: StreamingRun): Promise<ScramCredential> {
  const { options } = run;
  const key = keyOf(user, run.namespace);
  const credential = await readUserCredential(options.database, key);
  if (credential) return credential;
  try {
    const stored = await storeUserPassword(
      options.database,
      options.platformKey,
      key,
      generatePassword(),
      run.status.now,
    );
    run.context.logger.info({ user: user.spec!.name }, 'password generated for a user applied without one');
    return stored;
  } catch (error) {
    // The API stored one between the read and the write: it is the one to use.
    if (!(error instanceof DuplicateStreamingUserError)) throw error;
    return (await readUserCredential(options.database, key))!;
  }
}

/** Makes the brokers accept the user's credential and rules, and writes whether they did. */
async function ensureOnBrokers(
  user: StreamingUser,
  cluster: StreamingCluster,
  credential: ScramCredential,
  run: StreamingRun,
): Promise<void> {
  const spec = user.spec!;
  try {
    await run.options.runtime.streaming.ensureUser(clusterWorkload(cluster), {
      name: spec.name,
      credential,
      ...(spec.consumerGroup === undefined ? {} : { consumerGroup: spec.consumerGroup }),
      acls: spec.acls,
    });
    await writeUserStatus(user, { phase: 'ready' }, run);
  } catch (error) {
    if (!(error instanceof WorkloadError)) throw error;
    run.context.logger.warn({ reason: error.reason, err: error.message }, 'the brokers refused the user');
    await writeUserStatus(user, { phase: 'error', reason: error.reason, message: error.message }, run);
  }
}

/**
 * Reconciles StreamingUsers: gives a user applied with kubectl a generated password the first
 * time it is seen (the API stores the one it was given), makes the brokers accept its SCRAM
 * credential and access rules, and removes it and its credential when the object is deleted.
 */
export function streamingUserController(options: StreamingControllerOptions): ControllerDefinition {
  const reconcile: Reconciler = async ({ namespace = '', name }, context) => {
    let user = context.cache.get<StreamingUser>(STREAMING_USER, namespace, name);
    if (!user?.spec) return;
    const spec = user.spec;
    const run = streamingRun(user, namespace, context, options);
    if (user.metadata.deletionTimestamp) return removeUser(user, run);
    const problem = userSpecProblem(spec);
    if (problem) throw new TerminalError('InvalidSpec', `spec.${problem.field}: ${problem.message}`, 'error');
    user = await addFinalizer(context.store, STREAMING_USER, user);
    const cluster = context.cache.get<StreamingCluster>(STREAMING_CLUSTER, namespace, spec.cluster);
    if (!cluster?.spec) return writeUserStatus(user, clusterNotFound(spec.cluster), run);
    if (await clusterGoing(cluster, run)) return;
    user = await adoptedByCluster(context.store, STREAMING_USER, user, cluster);
    const credential = await credentialOf(user, run);
    if (!acceptsChildren(cluster)) {
      await writeUserStatus(user, waitingForCluster(user.spec!.cluster), run);
      return { requeueAfterMs: WAIT_FOR_CLUSTER_MS };
    }
    return ensureOnBrokers(user, cluster, credential, run);
  };

  return {
    name: 'streaminguser',
    for: STREAMING_USER,
    // A cluster becoming running (or restarted) wakes its users: the brokers must know them.
    watches: [childrenWatch(STREAMING_USER)],
    reconcile,
  };
}
