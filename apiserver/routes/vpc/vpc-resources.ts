/**
 * What the VPC routes share: reading a caller's VPC (another organization's is a 404), mapping
 * objects to the REST shapes of the specification, and turning validation problems into 400s.
 */
import {
  INTERNET_GATEWAY,
  NAT_GATEWAY,
  NETWORK_ACL,
  ROUTE_TABLE,
  SECURITY_GROUP,
  SUBNET,
  VPC,
  type NatGateway,
  type Subnet,
  type Vpc,
  type VpcPart,
} from '../../../crds/vpc.js';
import type { Principal } from '../../../accounts/principal.js';
import type { ObjectStore } from '../../../control-plane/types.js';
import type { ValidationProblem } from '../../../controllers/vpc/index.js';
import { listParts, VpcValidationError } from '../../../controllers/vpc/index.js';
import { badRequest, conflict } from '../../errors.js';
import { findInNamespace, tenantNamespace } from '../../routing/tenancy.js';
import { isDeleted, withoutDeleted } from '../../routing/deleted.js';
import type { JsonSchema } from '../../routing/json-schema.js';
import { UPDATED_AT_ANNOTATION } from '../../../crds/annotations.js';

/** DNS-label names: every id the API hands out is one. */
export const ID_SCHEMA = {
  type: 'string',
  pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
  maxLength: 63,
} as const satisfies JsonSchema;

export const VPC_PARAMS = {
  type: 'object',
  required: ['id'],
  properties: { id: ID_SCHEMA },
} as const;

export interface VpcParams {
  id: string;
}

/** The 400 for problems found by the shared validation, naming each field and rule. */
export function invalid(problems: readonly ValidationProblem[]) {
  return badRequest(problems.map((problem) => problem.message).join('; '), {
    details: {
      fields: problems.map((problem) => ({
        in: 'body',
        field: problem.field,
        rule: problem.rule,
        message: problem.message,
      })),
    },
  });
}

/** Runs a check of the shared validation, answering its problems as a 400. */
export function checked<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof VpcValidationError) throw invalid(error.problems);
    throw error;
  }
}

export async function readVpc(store: ObjectStore, namespace: string, id: string): Promise<Vpc> {
  // A VPC whose deletion has begun is still read: its DELETE, PATCH and parts answer 409 for it.
  return findInNamespace(store, namespace, { type: VPC, noun: 'VPC', visible: () => true }, id);
}

/** A VPC that can still take new parts. */
export async function readLiveVpc(store: ObjectStore, namespace: string, id: string): Promise<Vpc> {
  const vpc = await readVpc(store, namespace, id);
  if (vpc.metadata.deletionTimestamp) throw conflict(`VPC ${id} is being deleted`);
  return vpc;
}

/** A part of the given VPC, or a 404 naming what is missing (or deleted: its DELETE answered 204). */
export async function readPart<T extends VpcPart>(
  store: ObjectStore,
  type: typeof VPC,
  namespace: string,
  vpcId: string,
  id: string,
  noun: string,
): Promise<T> {
  const visible = (part: T) => part.spec?.vpcRef === vpcId && !isDeleted(part);
  return findInNamespace(
    store,
    namespace,
    { type, noun, visible },
    id,
    `${noun} ${id} not found in VPC ${vpcId}`,
  );
}

/** REST rows oldest first, ties broken by id, as every VPC list answers them. */
export const byCreatedAt = <T extends { created_at: string; id: string }>(a: T, b: T) =>
  a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id);

/**
 * The live parts of one kind of the VPC in the path, as REST rows oldest first; 404 when the
 * caller's organization has no such VPC.
 */
export async function listPartRows<T extends VpcPart, R extends { created_at: string; id: string }>(
  ctx: { store: ObjectStore; principal: Principal; now: () => Date; params: VpcParams },
  type: typeof VPC,
  row: (part: T, now: Date) => R,
): Promise<{ data: R[] }> {
  const namespace = tenantNamespace(ctx.principal);
  await readVpc(ctx.store, namespace, ctx.params.id);
  const parts = await listParts<T>(ctx.store, type, namespace, ctx.params.id);
  return {
    data: withoutDeleted(parts)
      .map((part) => row(part, ctx.now()))
      .sort(byCreatedAt),
  };
}

/** Every part in the namespace, grouped by kind, read once per request. */
export async function readParts(store: ObjectStore, namespace: string) {
  const list = async <T extends VpcPart>(type: typeof VPC) =>
    (await store.list<T>(type, { namespace })).items;
  return {
    subnets: await list<Subnet>(SUBNET),
    routeTables: await list(ROUTE_TABLE),
    natGateways: await list<NatGateway>(NAT_GATEWAY),
    internetGateways: await list(INTERNET_GATEWAY),
    securityGroups: await list(SECURITY_GROUP),
    networkAcls: await list(NETWORK_ACL),
  };
}

export type PartsOfNamespace = Awaited<ReturnType<typeof readParts>>;

export function createdAt(object: { metadata: { creationTimestamp?: string } }, now: Date): string {
  return object.metadata.creationTimestamp ?? now.toISOString();
}

export function updatedAt(
  object: { metadata: { creationTimestamp?: string; annotations?: Record<string, string> } },
  now: Date,
): string {
  return object.metadata.annotations?.[UPDATED_AT_ANNOTATION] ?? createdAt(object, now);
}

/** The part's phase as the API shows it: `pending` until its controller has looked at it. */
export function partStatus(part: VpcPart, fallback = 'pending'): string {
  return part.status?.phase ?? fallback;
}
