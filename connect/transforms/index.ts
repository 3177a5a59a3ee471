/**
 * Single message transforms and predicates with Apache Kafka's class names and keys: the chain a
 * task runs (`transformChain`) and the keys and problems `config/validate` answers for them
 * (`transformationConfigInfo`).
 */
export {
  transformChain,
  transformationConfigInfo,
  TransformChainConfigError,
  TransformError,
  type TransformChain,
  type TransformConfigDefinition,
} from './chain.js';
export { PREDICATES, TRANSFORMATION_CLASSES } from './registry.js';
