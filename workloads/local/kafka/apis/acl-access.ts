import { CLUSTER_RESOURCE, isAllowed, type Principal } from '../acl.js';

/**
 * Who may list and change ACLs over the Kafka protocol, as Kafka asks: DESCRIBE on the cluster
 * resource to list them (ALTER implies it), ALTER on it to create and delete them.
 */
export function mayManageAcls(principal: Principal, operation: 'describe' | 'alter'): boolean {
  return isAllowed(principal, 'cluster', CLUSTER_RESOURCE, operation);
}
