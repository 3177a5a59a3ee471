/** `/api/v1/vpcs/:id/route-tables`, `/internet-gateways` and `/nat-gateways`. */
import { API_VERSION } from '../../../control-plane/kind-descriptor.js';
import {
  INTERNET_GATEWAY,
  NAT_GATEWAY,
  ROUTE_TABLE,
  SUBNET,
  type InternetGateway,
  type NatGateway,
  type RouteTable,
  type Subnet,
  type VpcPart,
} from '../../../crds/vpc.js';
import { isStoreError, type ObjectStore } from '../../../control-plane/types.js';
import { newPartId, partIdPattern } from '../../../controllers/vpc/index.js';
import { formatCidr } from '../../../controllers/vpc/index.js';
import { listParts, withOwner } from '../../../controllers/vpc/index.js';
import { findAllocationById } from '../../../controllers/vpc/index.js';
import { effectiveRoutes, localRoute, routeStates } from '../../../controllers/vpc/index.js';
import { checkAnyBlock } from '../../../controllers/vpc/index.js';
import { mainRouteTableId } from '../../../controllers/vpc/index.js';
import { badRequest, conflict, notFound } from '../../errors.js';
import type { JsonSchema } from '../../routing/json-schema.js';
import { defineRoute, type RouteDefinition, type AuthenticatedContext } from '../../routing/route.js';
import { tenantNamespace } from '../../routing/tenancy.js';
import {
  checked,
  createdAt,
  ID_SCHEMA,
  partStatus,
  readLiveVpc,
  readPart,
  readVpc,
  type VpcParams,
  listPartRows,
} from './vpc-resources.js';

const TARGETS = ['internet_gateway', 'nat_gateway', 'vpn_gateway', 'instance', 'network_interface'] as const;
type Target = (typeof TARGETS)[number];

const TARGET_KINDS: Partial<Record<Target, { type: typeof ROUTE_TABLE; noun: string; create: string }>> = {
  internet_gateway: { type: INTERNET_GATEWAY, noun: 'internet gateway', create: 'internet-gateways' },
  nat_gateway: { type: NAT_GATEWAY, noun: 'NAT gateway', create: 'nat-gateways' },
};

const IGW_VIEW = {
  type: 'object',
  properties: {
    id: { type: 'string', pattern: '^igw-' },
    name: { type: 'string' },
    status: { type: 'string', examples: ['available'] },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const satisfies JsonSchema;

const NAT_VIEW = {
  type: 'object',
  properties: {
    id: { type: 'string', pattern: '^nat-' },
    status: { type: 'string', enum: ['pending', 'available', 'failed'] },
    public_ip: { type: ['string', 'null'] },
    elastic_ip_allocation_id: { type: ['string', 'null'], pattern: '^eipalloc-' },
    subnet_id: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const satisfies JsonSchema;

function igwView(gateway: InternetGateway, now: Date) {
  return {
    id: gateway.metadata.name,
    name: gateway.spec?.name ?? gateway.metadata.name,
    // Nothing has to be provisioned for an internet gateway: it is usable once it exists.
    status: partStatus(gateway, 'available'),
    created_at: createdAt(gateway, now),
  };
}

function natView(gateway: NatGateway, now: Date) {
  return {
    id: gateway.metadata.name,
    status: partStatus(gateway),
    public_ip: gateway.status?.publicIp ?? null,
    elastic_ip_allocation_id: gateway.status?.allocationId ?? gateway.spec?.allocationId ?? null,
    subnet_id: gateway.spec!.subnetId,
    created_at: createdAt(gateway, now),
  };
}

const ROUTE_VIEW = {
  type: 'object',
  properties: {
    destination: { type: 'string' },
    target: { type: 'string' },
    state: {
      type: 'string',
      enum: ['active', 'blackhole'],
      description: 'blackhole once the target gateway has been deleted; delete the route or route it anew',
    },
  },
} as const satisfies JsonSchema;

/** Ids of the VPC's gateways that can carry traffic: those not being deleted. */
async function liveGateways(store: ObjectStore, namespace: string, vpcId: string): Promise<Set<string>> {
  const gateways = [
    ...(await listParts<VpcPart>(store, INTERNET_GATEWAY, namespace, vpcId)),
    ...(await listParts<VpcPart>(store, NAT_GATEWAY, namespace, vpcId)),
  ];
  return new Set(
    gateways.filter((gateway) => !gateway.metadata.deletionTimestamp).map((gateway) => gateway.metadata.name),
  );
}

const BLACKHOLE_NOTE =
  'Routes that target the gateway stay in their tables as blackhole routes, as on AWS; delete them with ' +
  'DELETE /api/v1/vpcs/{id}/route-tables/{rtb_id}/routes?destination_cidr_block=….';

interface RouteBody {
  destination_cidr_block: string;
  target: Target;
  target_id?: string;
}

const base = { area: 'vpc', auth: 'authenticated', tags: ['vpc'] } as const;
const vpcParams = { type: 'object', required: ['id'], properties: { id: ID_SCHEMA } } as const;
const partParams = (param: string, prefix: 'rtb' | 'igw' | 'nat') =>
  ({
    type: 'object',
    required: ['id', param],
    properties: { id: ID_SCHEMA, [param]: { type: 'string', pattern: partIdPattern(prefix) } },
  }) as const;

async function listRouteTables({ params, principal, store }: AuthenticatedContext<{ params: VpcParams }>) {
  const namespace = tenantNamespace(principal);
  const vpc = await readVpc(store, namespace, params.id);
  const tables = await listParts<RouteTable>(store, ROUTE_TABLE, namespace, params.id);
  const subnets = await listParts<Subnet>(store, SUBNET, namespace, params.id);
  const main = mainRouteTableId(vpc);
  const live = await liveGateways(store, namespace, params.id);
  return {
    data: tables
      .sort((a, b) => Number(b.spec?.main ?? false) - Number(a.spec?.main ?? false))
      .map((table) => ({
        id: table.metadata.name,
        name: table.spec?.name ?? table.metadata.name,
        routes: routeStates(effectiveRoutes(table, vpc), live),
        subnet_associations: subnets.filter(
          (subnet) => (subnet.spec?.routeTableId ?? main) === table.metadata.name,
        ).length,
      })),
  };
}

/** The route table a route's path names, in the caller's VPC, or a 404. */
function readRouteTable(store: ObjectStore, namespace: string, params: VpcParams & { rtb_id: string }) {
  return readPart<RouteTable>(store, ROUTE_TABLE, namespace, params.id, params.rtb_id, 'route table');
}

/** A route's destination in its canonical form, or a 400 naming the field. */
function destinationBlock(value: string): string {
  return formatCidr(checked(() => checkAnyBlock('destination_cidr_block', value)));
}

async function addRoute({
  params,
  body,
  principal,
  store,
}: AuthenticatedContext<{ params: VpcParams & { rtb_id: string }; body: RouteBody }>) {
  const namespace = tenantNamespace(principal);
  const vpc = await readLiveVpc(store, namespace, params.id);
  const table = await readRouteTable(store, namespace, params);
  const destination = destinationBlock(body.destination_cidr_block);
  const kind = TARGET_KINDS[body.target];
  if (!kind) {
    throw badRequest(
      `target: VPC ${params.id} has no ${body.target} to route to; routes can target internet_gateway or nat_gateway`,
    );
  }
  const gateways = await listParts<VpcPart>(store, kind.type, namespace, params.id);
  if (gateways.length === 0) {
    throw badRequest(
      `target: VPC ${params.id} has no ${kind.noun}; create one with POST /api/v1/vpcs/${params.id}/${kind.create}`,
    );
  }
  const ids = gateways.map((gateway) => gateway.metadata.name).sort();
  let targetId: string;
  if (body.target_id !== undefined) {
    if (!ids.includes(body.target_id)) {
      throw badRequest(
        `target_id: ${body.target_id} is not a ${kind.noun} of VPC ${params.id}; it has ${ids.join(', ')}`,
      );
    }
    targetId = body.target_id;
  } else if (ids.length > 1) {
    throw badRequest(
      `target_id: VPC ${params.id} has ${ids.length} ${kind.noun}s (${ids.join(', ')}); name one with target_id`,
    );
  } else {
    targetId = ids[0]!;
  }
  const live = await liveGateways(store, namespace, params.id);
  const existing = routeStates(effectiveRoutes(table, vpc), live).find(
    (route) => route.destination === destination,
  );
  if (existing) {
    const blackhole = existing.state === 'blackhole' ? ' (a blackhole route: delete it first)' : '';
    throw conflict(
      `route table ${params.rtb_id} already routes ${destination} to ${existing.target}${blackhole}`,
      { details: { existing_route: existing } },
    );
  }
  await store.update<RouteTable>(ROUTE_TABLE, {
    ...table,
    spec: {
      ...table.spec!,
      routes: [...(table.spec?.routes ?? []), { destination, target: targetId }],
    },
  });
  return { status: 201 };
}

async function deleteRoute({
  params,
  query,
  principal,
  store,
}: AuthenticatedContext<{
  params: VpcParams & { rtb_id: string };
  query: { destination_cidr_block: string };
}>) {
  const namespace = tenantNamespace(principal);
  const vpc = await readVpc(store, namespace, params.id);
  const table = await readRouteTable(store, namespace, params);
  const destination = destinationBlock(query.destination_cidr_block);
  if (destination === localRoute(vpc).destination) {
    throw badRequest(
      `destination_cidr_block: ${destination} is the local route of VPC ${params.id}, which cannot be deleted`,
      {
        details: {
          fields: [
            {
              in: 'query',
              field: 'destination_cidr_block',
              rule: 'local_route',
              message: 'the local route cannot be deleted',
            },
          ],
        },
      },
    );
  }
  const routes = table.spec?.routes ?? [];
  if (!routes.some((route) => route.destination === destination)) {
    throw notFound(`route table ${params.rtb_id} has no route to ${destination}`);
  }
  await store.update<RouteTable>(ROUTE_TABLE, {
    ...table,
    spec: { ...table.spec!, routes: routes.filter((route) => route.destination !== destination) },
  });
  return { status: 204 };
}

async function attachInternetGateway({
  params,
  body,
  principal,
  now,
  store,
}: AuthenticatedContext<{ params: VpcParams; body: { name?: string } }>) {
  const namespace = tenantNamespace(principal);
  const vpc = await readLiveVpc(store, namespace, params.id);
  const [attached] = await listParts<InternetGateway>(store, INTERNET_GATEWAY, namespace, params.id);
  if (attached) {
    throw conflict(`VPC ${params.id} already has internet gateway ${attached.metadata.name}`, {
      details: { existing_internet_gateway_id: attached.metadata.name },
    });
  }
  const id = newPartId('igw');
  const created = await store.create<InternetGateway>(
    INTERNET_GATEWAY,
    withOwner<InternetGateway>(
      {
        apiVersion: API_VERSION,
        kind: 'InternetGateway',
        metadata: { name: id, namespace },
        spec: { vpcRef: params.id, name: body.name?.trim() ?? id },
      },
      vpc,
    ),
  );
  return { status: 201, data: igwView(created, now()) };
}

async function listInternetGateways(ctx: AuthenticatedContext<{ params: VpcParams }>) {
  return listPartRows(ctx, INTERNET_GATEWAY, igwView);
}

async function deleteInternetGateway({
  params,
  principal,
  store,
}: AuthenticatedContext<{ params: VpcParams & { igw_id: string } }>) {
  const namespace = tenantNamespace(principal);
  await readVpc(store, namespace, params.id);
  await readPart(store, INTERNET_GATEWAY, namespace, params.id, params.igw_id, 'internet gateway');
  await store.delete(INTERNET_GATEWAY, namespace, params.igw_id);
  return { status: 204 };
}

async function listNatGateways(ctx: AuthenticatedContext<{ params: VpcParams }>) {
  return listPartRows(ctx, NAT_GATEWAY, natView);
}

async function createNatGateway({
  params,
  body,
  principal,
  database,
  now,
  store,
}: AuthenticatedContext<{ params: VpcParams; body: { subnet_id: string; allocation_id?: string } }>) {
  const namespace = tenantNamespace(principal);
  const vpc = await readLiveVpc(store, namespace, params.id);
  let subnet: Subnet | undefined;
  try {
    subnet = await store.get<Subnet>(SUBNET, namespace, body.subnet_id);
  } catch (error) {
    if (!isStoreError(error, 'NotFound')) throw error;
  }
  if (subnet?.spec?.vpcRef !== params.id) {
    throw badRequest(`subnet_id: ${body.subnet_id} is not a subnet of VPC ${params.id}`);
  }
  if (body.allocation_id !== undefined) {
    const holder = await findAllocationById(database, body.allocation_id);
    const inUse = (await store.list<NatGateway>(NAT_GATEWAY, { namespace })).items.find(
      (gateway) => gateway.spec?.allocationId === body.allocation_id,
    );
    const holderId = holder?.nat_gateway_id ?? inUse?.metadata.name;
    if (holderId) {
      throw conflict(`allocation_id: ${body.allocation_id} is in use by NAT gateway ${holderId}`, {
        details: { nat_gateway_id: holderId },
      });
    }
  }
  const id = newPartId('nat');
  const created = await store.create<NatGateway>(
    NAT_GATEWAY,
    withOwner<NatGateway>(
      {
        apiVersion: API_VERSION,
        kind: 'NatGateway',
        metadata: { name: id, namespace },
        spec: {
          vpcRef: params.id,
          subnetId: body.subnet_id,
          ...(body.allocation_id !== undefined && { allocationId: body.allocation_id }),
        },
      },
      vpc,
    ),
  );
  return { status: 201, data: { id, status: 'pending', created_at: createdAt(created, now()) } };
}

async function deleteNatGateway({
  params,
  principal,
  store,
}: AuthenticatedContext<{ params: VpcParams & { nat_id: string } }>) {
  const namespace = tenantNamespace(principal);
  await readVpc(store, namespace, params.id);
  await readPart(store, NAT_GATEWAY, namespace, params.id, params.nat_id, 'NAT gateway');
  await store.delete(NAT_GATEWAY, namespace, params.nat_id);
  return { status: 204 };
}

export const GATEWAY_ROUTES: RouteDefinition[] = [
  defineRoute<{ params: VpcParams }>({
    ...base,
    method: 'get',
    path: '/api/v1/vpcs/:id/route-tables',
    scopes: ['vpc:read'],
    summary: "A VPC's route tables",
    request: { params: vpcParams },
    responses: {
      200: {
        description: 'Route tables, each with the local route first',
        schema: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              id: { type: 'string', pattern: '^rtb-' },
              name: { type: 'string' },
              routes: { type: 'array', items: ROUTE_VIEW },
              subnet_associations: { type: 'integer' },
            },
          },
        },
      },
    },
    handler: listRouteTables,
  }),
  defineRoute<{ params: VpcParams & { rtb_id: string }; body: RouteBody }>({
    ...base,
    method: 'post',
    path: '/api/v1/vpcs/:id/route-tables/:rtb_id/routes',
    scopes: ['vpc:write'],
    summary: 'Add a route',
    description:
      "The target resolves to the VPC's gateway of that kind; target_id picks one when the VPC has " +
      'several. A destination the table already routes is refused, naming the existing route.',
    request: {
      params: partParams('rtb_id', 'rtb'),
      body: {
        type: 'object',
        required: ['destination_cidr_block', 'target'],
        additionalProperties: false,
        properties: {
          destination_cidr_block: { type: 'string', maxLength: 18 },
          target: { type: 'string', enum: TARGETS },
          target_id: { type: 'string', maxLength: 64 },
        },
      },
    },
    responses: { 201: { description: 'The route was added' } },
    handler: addRoute,
  }),
  defineRoute<{ params: VpcParams & { rtb_id: string }; query: { destination_cidr_block: string } }>({
    ...base,
    method: 'delete',
    path: '/api/v1/vpcs/:id/route-tables/:rtb_id/routes',
    scopes: ['vpc:write'],
    summary: 'Delete a route',
    description:
      "Removes the table's route to destination_cidr_block, active or blackhole. The local route keeps " +
      "traffic to the VPC's own block inside the VPC and cannot be deleted.",
    request: {
      params: partParams('rtb_id', 'rtb'),
      query: {
        type: 'object',
        required: ['destination_cidr_block'],
        properties: { destination_cidr_block: { type: 'string', maxLength: 18 } },
      },
    },
    responses: { 204: { description: 'The route was deleted' } },
    handler: deleteRoute,
  }),
  defineRoute<{ params: VpcParams; body: { name?: string } }>({
    ...base,
    method: 'post',
    path: '/api/v1/vpcs/:id/internet-gateways',
    scopes: ['vpc:write'],
    summary: 'Attach an internet gateway',
    description: 'A VPC has at most one internet gateway; a second is refused, naming the first.',
    request: {
      params: vpcParams,
      body: {
        type: 'object',
        additionalProperties: false,
        properties: { name: { type: 'string', minLength: 1, maxLength: 255, pattern: '\\S' } },
      },
    },
    responses: { 201: { description: 'The new gateway', schema: IGW_VIEW } },
    handler: attachInternetGateway,
  }),
  defineRoute<{ params: VpcParams }>({
    ...base,
    method: 'get',
    path: '/api/v1/vpcs/:id/internet-gateways',
    scopes: ['vpc:read'],
    summary: "A VPC's internet gateways",
    request: { params: vpcParams },
    responses: { 200: { description: 'Internet gateways', schema: { type: 'array', items: IGW_VIEW } } },
    handler: listInternetGateways,
  }),
  defineRoute<{ params: VpcParams & { igw_id: string } }>({
    ...base,
    method: 'delete',
    path: '/api/v1/vpcs/:id/internet-gateways/:igw_id',
    scopes: ['vpc:write'],
    summary: 'Detach and delete an internet gateway',
    description: BLACKHOLE_NOTE,
    request: { params: partParams('igw_id', 'igw') },
    responses: { 204: { description: 'Deleted' } },
    handler: deleteInternetGateway,
  }),
  defineRoute<{ params: VpcParams }>({
    ...base,
    method: 'get',
    path: '/api/v1/vpcs/:id/nat-gateways',
    scopes: ['vpc:read'],
    summary: "A VPC's NAT gateways",
    request: { params: vpcParams },
    responses: { 200: { description: 'NAT gateways', schema: { type: 'array', items: NAT_VIEW } } },
    handler: listNatGateways,
  }),
  defineRoute<{ params: VpcParams; body: { subnet_id: string; allocation_id?: string } }>({
    ...base,
    method: 'post',
    path: '/api/v1/vpcs/:id/nat-gateways',
    scopes: ['vpc:write'],
    summary: 'Create a NAT gateway',
    description:
      'The gateway is pending until it holds a public address from the pool (CLOUDPLANE_NAT_PUBLIC_IP_POOL), ' +
      'then available. allocation_id names the address allocation; one is made when omitted.',
    request: {
      params: vpcParams,
      body: {
        type: 'object',
        required: ['subnet_id'],
        additionalProperties: false,
        properties: {
          subnet_id: ID_SCHEMA,
          allocation_id: { type: 'string', pattern: partIdPattern('eipalloc') },
        },
      },
    },
    responses: {
      201: {
        description: 'The new gateway',
        schema: {
          type: 'object',
          properties: {
            id: NAT_VIEW.properties.id,
            status: NAT_VIEW.properties.status,
            created_at: NAT_VIEW.properties.created_at,
          },
        },
      },
    },
    handler: createNatGateway,
  }),
  defineRoute<{ params: VpcParams & { nat_id: string } }>({
    ...base,
    method: 'delete',
    path: '/api/v1/vpcs/:id/nat-gateways/:nat_id',
    scopes: ['vpc:write'],
    summary: 'Delete a NAT gateway',
    description: `Its public address returns to the pool. ${BLACKHOLE_NOTE}`,
    request: { params: partParams('nat_id', 'nat') },
    responses: { 204: { description: 'Deletion has begun' } },
    handler: deleteNatGateway,
  }),
];
