import os from 'node:os';
import { ConfigError, type Env } from './env.js';

/** Where the operator's Lease lives and who this replica is: the pod's namespace and name, from the downward API. */
export interface LeaderElectionConfig {
  namespace: string;
  identity: string;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** Read only by `cloudplane operator`, so only that command fails on a bad value. */
export function leaderElectionConfig(env: Env): LeaderElectionConfig {
  const variable = 'CLOUDPLANE_LEADER_ELECTION_NAMESPACE';
  const namespace = env[variable]?.trim() || 'default';
  if (!DNS_LABEL.test(namespace)) throw new ConfigError(variable, 'a namespace name', namespace);
  return { namespace, identity: env.POD_NAME?.trim() || os.hostname() };
}
