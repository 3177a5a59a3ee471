import {
  STREAMING_CLUSTER,
  STREAMING_USER,
  type StreamingCluster,
  type StreamingUser,
} from '../../crds/streaming.js';
import { WorkloadError } from '../../workloads/runtime.js';
import type { ControllerDefinition, Reconciler } from '../runtime/controller.js';
import { TerminalError } from '../runtime/controller.js';
import { addFinalizer, holdsFinalizer, removeFinalizer } from '../runtime/finalizers.js';
import { writeStatusIfChanged } from '../runtime/status.js';
import { acceptsChildren, adoptedByCluster, childrenOf, liveCluster } from './children.js';
import type { StreamingControllerOptions } from './cluster-controller.js';
import {
  DuplicateStreamingUserError,
  generatePassword,
  readUserCredential,
  removeUserCredential,
  storeUserPassword,
  type StreamingUserKey,
} from './credentials.js';
import { aclsProblem, consumerGroupProblem, REASONS, userNameProblem, userStatus } from './engine.js';
import { clusterWorkload } from './workload-of.js';

const WAIT_FOR_CLUSTER_MS = 1_000;

/**
 * Reconciles StreamingUsers: gives a user applied with kubectl a generated password the first
 * time it is seen (the API stores the one it was given), makes the brokers accept its SCRAM
 * credential and access rules, and removes it and its credential when the object is deleted.
 */
export function streamingUserController(options: StreamingControllerOptions): ControllerDefinition {
  const { database: dataPlane } = options;
  const reconcile: Reconciler = async ({ namespace = '', name }, { store, cache, clock, logger }) => {
    let user = cache.get<StreamingUser>(STREAMING_USER, namespace, name);
    if (!user?.spec) return;
    const spec = user.spec;
    const streaming = options.runtime.streaming;
    const cluster = cache.get<StreamingCluster>(STREAMING_CLUSTER, namespace, spec.cluster);
    const key: StreamingUserKey = { namespace, cluster: spec.cluster, username: spec.name };
    const now = clock.now();
    const context = { generation: user.metadata.generation, now };

    if (user.metadata.deletionTimestamp) {
      if (!holdsFinalizer(user)) return;
      const owner = await liveCluster(store, namespace, spec.cluster);
      if (owner) await streaming.removeUser(clusterWorkload(owner), spec.name);
      await removeUserCredential(dataPlane, key);
      await removeFinalizer(store, STREAMING_USER, user);
      logger.info({ user: spec.name }, 'streaming user removed');
      return;
    }

    const problem =
      userNameProblem(spec.name) ?? consumerGroupProblem(spec.consumerGroup) ?? aclsProblem(spec.acls);
    if (problem) throw new TerminalError('InvalidSpec', `spec.${problem.field}: ${problem.message}`, 'error');

    user = await addFinalizer(store, STREAMING_USER, user);
    if (!cluster?.spec) {
      await writeStatusIfChanged(
        store,
        STREAMING_USER,
        user,
        userStatus(
          user.status,
          { phase: 'error', reason: 'ClusterNotFound', message: `cluster ${spec.cluster} does not exist` },
          context,
        ),
      );
      return;
    }
    // A cluster going takes its users' credentials with it (and then the users): one stored now
    // would outlive it. The cache may not have seen the deletion yet, so the store is asked.
    if (cluster.metadata.deletionTimestamp || !(await liveCluster(store, namespace, spec.cluster))) return;
    user = await adoptedByCluster(store, STREAMING_USER, user, cluster);
    let credential = await readUserCredential(dataPlane, key);
    if (!credential) {
      try {
        credential = await storeUserPassword(dataPlane, options.platformKey, key, generatePassword(), now);
        logger.info({ user: spec.name }, 'password generated for a user applied without one');
      } catch (error) {
        // The API stored one between the read and the write: it is the one to use.
        if (!(error instanceof DuplicateStreamingUserError)) throw error;
        credential = (await readUserCredential(dataPlane, key))!;
      }
    }
    if (!acceptsChildren(cluster)) {
      await writeStatusIfChanged(
        store,
        STREAMING_USER,
        user,
        userStatus(
          user.status,
          {
            phase: 'pending',
            reason: REASONS.WaitingForCluster,
            message: `waiting for cluster ${spec.cluster} to be running`,
          },
          context,
        ),
      );
      return { requeueAfterMs: WAIT_FOR_CLUSTER_MS };
    }
    try {
      await streaming.ensureUser(clusterWorkload(cluster), {
        name: spec.name,
        credential,
        ...(spec.consumerGroup === undefined ? {} : { consumerGroup: spec.consumerGroup }),
        acls: spec.acls,
      });
      await writeStatusIfChanged(
        store,
        STREAMING_USER,
        user,
        userStatus(user.status, { phase: 'ready' }, context),
      );
    } catch (error) {
      if (!(error instanceof WorkloadError)) throw error;
      logger.warn({ reason: error.reason, err: error.message }, 'the brokers refused the user');
      await writeStatusIfChanged(
        store,
        STREAMING_USER,
        user,
        userStatus(user.status, { phase: 'error', reason: error.reason, message: error.message }, context),
      );
    }
    return undefined;
  };

  return {
    name: 'streaminguser',
    for: STREAMING_USER,
    // A cluster becoming running (or restarted) wakes its users: the brokers must know them.
    watches: [
      {
        type: STREAMING_CLUSTER,
        map: (cluster, cache) =>
          childrenOf(
            cache.list<StreamingUser>(STREAMING_USER, cluster.metadata.namespace),
            cluster.metadata.name,
          ).map((user) => ({ namespace: user.metadata.namespace, name: user.metadata.name })),
      },
    ],
    reconcile,
  };
}
