import type { Principal } from '../acl.js';

/**
 * Who may list and change ACLs over the Kafka protocol. Kafka asks for DESCRIBE (list) and ALTER
 * (change) on the cluster resource; the platform's ACLs hold topics and groups only, so here that
 * is its own superuser, and the users' ACLs are otherwise changed through the platform's API.
 */
export function mayManageAcls(principal: Principal): boolean {
  return principal.superuser;
}
