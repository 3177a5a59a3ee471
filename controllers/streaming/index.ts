/**
 * The event-streaming family: StreamingCluster, StreamingTopic and StreamingUser, their
 * controllers, the users' credentials, and the decisions the routes share with the controllers.
 */
import type { ControllerDefinition } from '../runtime/controller.js';
import { streamingClusterController } from './cluster-controller.js';
import type { StreamingControllerOptions } from './streaming-run.js';
import { streamingTopicController } from './topic-controller.js';
import { streamingUserController } from './user-controller.js';

export type { StreamingControllerOptions } from './streaming-run.js';
export { acceptsChildren, childrenOf, CREATED_BY_KAFKA, topicObject, userObject } from './children.js';
export {
  DuplicateStreamingUserError,
  generatePassword,
  removeUserCredential,
  revealUserPassword,
  storeUserPassword,
  type StreamingUserKey,
} from './credentials.js';
export {
  aclsProblem,
  consumerGroupProblem,
  DEFAULT_TIER,
  defaultReplicas,
  defaultRetention,
  FLUSH_DEFAULTS,
  formatRetention,
  monthlyPriceUsd,
  regionProblem,
  streamingLimits,
  TIERS,
  topicSpecProblem,
  userNameProblem,
  type Problem,
} from './engine.js';
export { childObjectName } from './ids.js';
export { clusterWorkload } from './workload-of.js';

export function streamingControllers(options: StreamingControllerOptions): ControllerDefinition[] {
  return [
    streamingClusterController(options),
    streamingTopicController(options),
    streamingUserController(options),
  ];
}
