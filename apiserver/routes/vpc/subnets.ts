/** `/api/v1/vpcs/:id/subnets`. */
import { API_VERSION } from '../../../control-plane/kind-descriptor.js';
import { NAT_GATEWAY, SUBNET, type NatGateway, type Subnet, type Vpc } from '../../../crds/vpc.js';
import { claimCidr, releaseCidrClaim, vpcScope } from '../../../controllers/vpc/index.js';
import { newSubnetId } from '../../../controllers/vpc/index.js';
import { availableIpCount, parseCidr } from '../../../controllers/vpc/index.js';
import { listParts, withOwner } from '../../../controllers/vpc/index.js';
import { subnetOverlapMessage, subnetProblems } from '../../../controllers/vpc/index.js';
import { defaultNetworkAclId, mainRouteTableId } from '../../../controllers/vpc/index.js';
import { conflict } from '../../errors.js';
import type { JsonSchema } from '../../routing/json-schema.js';
import { defineRoute, type RouteDefinition, type AuthenticatedContext } from '../../routing/route.js';
import { withoutDeleted } from '../../routing/deleted.js';
import { createResource } from '../../routing/resource-handlers.js';
import { tenantNamespace } from '../../routing/tenancy.js';
import {
  createdAt,
  ID_SCHEMA,
  invalid,
  readLiveVpc,
  readPart,
  readVpc,
  type VpcParams,
  byCreatedAt,
} from './vpc-resources.js';

const SUBNET_SUMMARY = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    cidr_block: { type: 'string' },
    availability_zone: { type: 'string' },
    available_ip_count: { type: 'integer' },
    map_public_ip_on_launch: { type: 'boolean' },
    route_table_id: { type: 'string', pattern: '^rtb-' },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const satisfies JsonSchema;

const SUBNET_DETAIL = {
  type: 'object',
  properties: {
    ...SUBNET_SUMMARY.properties,
    assigned_ip_count: { type: 'integer' },
    network_acl_id: { type: 'string', pattern: '^acl-' },
  },
} as const satisfies JsonSchema;

const SUBNET_PARAMS = {
  type: 'object',
  required: ['id', 'subnet_id'],
  properties: { id: ID_SCHEMA, subnet_id: ID_SCHEMA },
} as const;

interface CreateSubnetBody {
  name: string;
  cidr_block: string;
  availability_zone: string;
  map_public_ip_on_launch?: boolean;
}

function subnetView(subnet: Subnet, vpc: Vpc, gateways: readonly NatGateway[], now: Date) {
  const spec = subnet.spec!;
  const assigned = gateways.filter((gateway) => gateway.spec?.subnetId === subnet.metadata.name).length;
  return {
    summary: {
      id: subnet.metadata.name,
      name: spec.name ?? subnet.metadata.name,
      cidr_block: spec.cidrBlock,
      availability_zone: spec.availabilityZone,
      available_ip_count: availableIpCount(parseCidr(spec.cidrBlock), assigned),
      map_public_ip_on_launch: spec.mapPublicIpOnLaunch ?? false,
      route_table_id: spec.routeTableId ?? mainRouteTableId(vpc),
      created_at: createdAt(subnet, now),
    },
    assigned,
    networkAclId: spec.networkAclId ?? defaultNetworkAclId(vpc),
  };
}

/** Subnets are created with ids of their own (uuids), and two subnets may have the same name. */
const NEW_SUBNETS = {
  lookup: { type: SUBNET, noun: 'subnet' },
  newId: newSubnetId,
  nameCheck: false,
} as const;

/** The 201 of a new subnet: every address of its block still free. */
function newSubnetView(subnet: Subnet, now: Date) {
  const spec = subnet.spec!;
  return {
    id: subnet.metadata.name,
    name: spec.name,
    cidr_block: spec.cidrBlock,
    availability_zone: spec.availabilityZone,
    available_ip_count: availableIpCount(parseCidr(spec.cidrBlock), 0),
    created_at: createdAt(subnet, now),
  };
}

const base = { area: 'vpc', auth: 'authenticated', tags: ['vpc'] } as const;
const vpcParams = { type: 'object', required: ['id'], properties: { id: ID_SCHEMA } } as const;

async function listSubnets({ params, principal, now, store }: AuthenticatedContext<{ params: VpcParams }>) {
  const namespace = tenantNamespace(principal);
  const vpc = await readVpc(store, namespace, params.id);
  const gateways = await listParts<NatGateway>(store, NAT_GATEWAY, namespace, params.id);
  return {
    data: withoutDeleted(await listParts<Subnet>(store, SUBNET, namespace, params.id))
      .map((subnet) => subnetView(subnet, vpc, gateways, now()).summary)
      .sort(byCreatedAt),
  };
}

async function createSubnet({
  params,
  body,
  principal,
  database,
  now,
  logger,
  store,
}: AuthenticatedContext<{ params: VpcParams; body: CreateSubnetBody }>) {
  const namespace = tenantNamespace(principal);
  const vpc = await readLiveVpc(store, namespace, params.id);
  const problems = subnetProblems(
    { cidrBlock: 'cidr_block', availabilityZone: 'availability_zone' },
    { cidrBlock: body.cidr_block, availabilityZone: body.availability_zone },
    vpc,
  );
  if (problems.length > 0) throw invalid(problems);
  const name = body.name.trim();
  const family = { ...NEW_SUBNETS, view: (subnet: Subnet) => newSubnetView(subnet, now()) };
  return createResource({ store, principal }, family, name, async ({ id }) => {
    const claim = await claimCidr(
      database,
      {
        namespace,
        kind: 'Subnet',
        scope: vpcScope(params.id),
        resourceId: id,
        resourceName: name,
        cidr: body.cidr_block,
      },
      now(),
    );
    if (claim.outcome === 'overlap') {
      const { holder } = claim;
      throw conflict(
        subnetOverlapMessage('cidr_block', body.cidr_block, {
          name: holder.resource_name,
          id: holder.resource_id,
          cidr: holder.cidr_block,
        }),
        {
          details: {
            conflicting_subnet: {
              id: holder.resource_id,
              name: holder.resource_name,
              cidr_block: holder.cidr_block,
            },
          },
        },
      );
    }
    let created: Subnet;
    try {
      created = await store.create<Subnet>(
        SUBNET,
        withOwner<Subnet>(
          {
            apiVersion: API_VERSION,
            kind: 'Subnet',
            metadata: { name: id, namespace },
            spec: {
              vpcRef: params.id,
              name,
              cidrBlock: body.cidr_block,
              availabilityZone: body.availability_zone,
              mapPublicIpOnLaunch: body.map_public_ip_on_launch ?? false,
            },
          },
          vpc,
        ),
      );
    } catch (error) {
      await releaseCidrClaim(database, namespace, id);
      throw error;
    }
    logger.info({ vpcId: params.id, subnetId: id, cidr: body.cidr_block }, 'subnet created');
    return created;
  });
}

async function getSubnet({
  params,
  principal,
  now,
  store,
}: AuthenticatedContext<{ params: VpcParams & { subnet_id: string } }>) {
  const namespace = tenantNamespace(principal);
  const vpc = await readVpc(store, namespace, params.id);
  const subnet = await readPart<Subnet>(store, SUBNET, namespace, params.id, params.subnet_id, 'subnet');
  const gateways = await listParts<NatGateway>(store, NAT_GATEWAY, namespace, params.id);
  const view = subnetView(subnet, vpc, gateways, now());
  return {
    data: { ...view.summary, assigned_ip_count: view.assigned, network_acl_id: view.networkAclId },
  };
}

async function deleteSubnet({
  params,
  principal,
  store,
}: AuthenticatedContext<{ params: VpcParams & { subnet_id: string } }>) {
  const namespace = tenantNamespace(principal);
  await readVpc(store, namespace, params.id);
  await readPart<Subnet>(store, SUBNET, namespace, params.id, params.subnet_id, 'subnet');
  const holders = (await listParts<NatGateway>(store, NAT_GATEWAY, namespace, params.id)).filter(
    (gateway) => gateway.spec?.subnetId === params.subnet_id,
  );
  if (holders.length > 0) {
    const ids = holders.map((gateway) => gateway.metadata.name);
    throw conflict(`subnet ${params.subnet_id} still holds NAT gateway ${ids.join(', ')}; delete it first`, {
      details: { nat_gateway_ids: ids },
    });
  }
  await store.delete(SUBNET, namespace, params.subnet_id);
  return { status: 204 };
}

export const SUBNET_ROUTES: RouteDefinition[] = [
  defineRoute<{ params: VpcParams }>({
    ...base,
    method: 'get',
    path: '/api/v1/vpcs/:id/subnets',
    scopes: ['vpc:read'],
    summary: "A VPC's subnets",
    request: { params: vpcParams },
    responses: { 200: { description: 'Subnets', schema: { type: 'array', items: SUBNET_SUMMARY } } },
    handler: listSubnets,
  }),
  defineRoute<{ params: VpcParams; body: CreateSubnetBody }>({
    ...base,
    method: 'post',
    path: '/api/v1/vpcs/:id/subnets',
    scopes: ['vpc:write'],
    summary: 'Create a subnet',
    description:
      "The block must lie inside the VPC's block and overlap no other subnet of the VPC; " +
      'GET /vpcs/:id/available-cidrs finds free ones.',
    request: {
      params: vpcParams,
      body: {
        type: 'object',
        required: ['name', 'cidr_block', 'availability_zone'],
        additionalProperties: false,
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 255, pattern: '\\S' },
          cidr_block: { type: 'string', maxLength: 18 },
          availability_zone: { type: 'string', maxLength: 64 },
          map_public_ip_on_launch: { type: 'boolean' },
        },
      },
    },
    responses: {
      201: {
        description: 'The new subnet',
        schema: {
          type: 'object',
          properties: {
            id: SUBNET_SUMMARY.properties.id,
            name: SUBNET_SUMMARY.properties.name,
            cidr_block: SUBNET_SUMMARY.properties.cidr_block,
            availability_zone: SUBNET_SUMMARY.properties.availability_zone,
            available_ip_count: SUBNET_SUMMARY.properties.available_ip_count,
            created_at: SUBNET_SUMMARY.properties.created_at,
          },
        },
      },
    },
    handler: createSubnet,
  }),
  defineRoute<{ params: VpcParams & { subnet_id: string } }>({
    ...base,
    method: 'get',
    path: '/api/v1/vpcs/:id/subnets/:subnet_id',
    scopes: ['vpc:read'],
    summary: 'Read a subnet',
    request: { params: SUBNET_PARAMS },
    responses: { 200: { description: 'The subnet', schema: SUBNET_DETAIL } },
    handler: getSubnet,
  }),
  defineRoute<{ params: VpcParams & { subnet_id: string } }>({
    ...base,
    method: 'delete',
    path: '/api/v1/vpcs/:id/subnets/:subnet_id',
    scopes: ['vpc:write'],
    summary: 'Delete a subnet',
    description: 'Refused while a NAT gateway lives in the subnet; the answer names it.',
    request: { params: SUBNET_PARAMS },
    responses: { 204: { description: 'Deleted' } },
    handler: deleteSubnet,
  }),
];
