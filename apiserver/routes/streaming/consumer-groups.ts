/**
 * `/v1/streaming/clusters/:id/consumer-groups`: the groups the brokers know and how far behind
 * they are, read from the brokers at each request.
 */
import type { GroupLag } from '../../../workloads/runtime.js';
import { notFound } from '../../errors.js';
import type { JsonSchema, ObjectSchema } from '../../routing/json-schema.js';
import { defineRoute, type RouteModule, type AuthenticatedContext } from '../../routing/route.js';
import {
  BASE,
  brokersOf,
  CLUSTER_PARAMS,
  findCluster,
  READ,
  type ClusterParams,
  type StreamingRouteServices,
} from './streaming-resources.js';

const LAG_STATUSES = ['OK', 'WARN', 'ERR', 'STOP', 'STALL'];

const GROUP_SUMMARY = {
  type: 'object',
  properties: {
    group_id: { type: 'string' },
    state: { type: 'string', description: 'Empty, PreparingRebalance, CompletingRebalance, Stable or Dead' },
    members: { type: 'integer' },
    topics: { type: 'array', items: { type: 'string' } },
    total_lag: { type: 'integer' },
  },
} as const satisfies JsonSchema;

const GROUP_DETAIL = {
  type: 'object',
  properties: {
    group_id: { type: 'string' },
    state: { type: 'string' },
    protocol: { type: 'string' },
    members: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          member_id: { type: 'string' },
          client_id: { type: 'string' },
          host: { type: 'string' },
          assignments: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                topic: { type: 'string' },
                partitions: { type: 'array', items: { type: 'integer' } },
              },
            },
          },
        },
      },
    },
  },
} as const satisfies JsonSchema;

const LAG_BODY = {
  type: 'object',
  properties: {
    group_id: { type: 'string' },
    total_lag: { type: 'integer' },
    status: { type: 'string', enum: LAG_STATUSES },
    time_lag_seconds: { type: 'number' },
    partitions: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          topic: { type: 'string' },
          partition: { type: 'integer' },
          committed_offset: { type: 'integer' },
          log_end_offset: { type: 'integer' },
          lag: { type: 'integer' },
          time_lag_seconds: { type: 'number' },
          status: { type: 'string', enum: LAG_STATUSES },
        },
      },
    },
  },
} as const satisfies JsonSchema;

const GROUP_PARAMS = {
  type: 'object',
  required: ['id', 'group'],
  properties: { ...CLUSTER_PARAMS.properties, group: { type: 'string', minLength: 1, maxLength: 249 } },
} as const satisfies ObjectSchema;

interface GroupParams extends ClusterParams {
  group: string;
}

function describeLag(lag: GroupLag) {
  return {
    group_id: lag.groupId,
    total_lag: lag.totalLag,
    status: lag.status,
    time_lag_seconds: lag.timeLagSeconds,
    partitions: lag.partitions.map((partition) => ({
      topic: partition.topic,
      partition: partition.partition,
      committed_offset: partition.committedOffset,
      log_end_offset: partition.logEndOffset,
      lag: partition.lag,
      time_lag_seconds: partition.timeLagSeconds,
      status: partition.status,
    })),
  };
}

async function listConsumerGroups({
  params,
  principal,
  store,
  streamingRuntime,
}: AuthenticatedContext<{ params: ClusterParams }, StreamingRouteServices>) {
  const { runtime, workload } = brokersOf(streamingRuntime, await findCluster(store, principal, params.id));
  const groups = (await runtime.listGroups(workload)).sort((a, b) => a.groupId.localeCompare(b.groupId));
  const rows = [];
  for (const group of groups) {
    const lag = await runtime.groupLag(workload, group.groupId);
    rows.push({
      group_id: group.groupId,
      state: group.state,
      members: group.members.length,
      topics: group.topics,
      total_lag: lag?.totalLag ?? 0,
    });
  }
  return { data: rows };
}

async function getConsumerGroup({
  params,
  principal,
  store,
  streamingRuntime,
}: AuthenticatedContext<{ params: GroupParams }, StreamingRouteServices>) {
  const { runtime, workload } = brokersOf(streamingRuntime, await findCluster(store, principal, params.id));
  const group = (await runtime.listGroups(workload)).find((entry) => entry.groupId === params.group);
  if (!group) throw notFound(`consumer group ${params.group} not found`);
  return {
    data: {
      group_id: group.groupId,
      state: group.state,
      protocol: group.protocol,
      members: group.members.map((member) => ({
        member_id: member.memberId,
        client_id: member.clientId,
        host: member.host,
        assignments: member.assignments.map((assignment) => ({
          topic: assignment.topic,
          partitions: assignment.partitions,
        })),
      })),
    },
  };
}

async function getConsumerGroupLag({
  params,
  principal,
  store,
  streamingRuntime,
}: AuthenticatedContext<{ params: GroupParams }, StreamingRouteServices>) {
  const { runtime, workload } = brokersOf(streamingRuntime, await findCluster(store, principal, params.id));
  const lag = await runtime.groupLag(workload, params.group);
  if (!lag) throw notFound(`consumer group ${params.group} not found`);
  return { data: describeLag(lag) };
}

export const consumerGroupRoutes: RouteModule<StreamingRouteServices> = {
  area: 'resources',
  routes: [
    defineRoute<{ params: ClusterParams }, StreamingRouteServices>({
      ...BASE,
      method: 'get',
      path: '/v1/streaming/clusters/:id/consumer-groups',
      scopes: READ,
      summary: "A cluster's consumer groups",
      request: { params: CLUSTER_PARAMS },
      responses: {
        200: { description: 'Groups, by id', schema: { type: 'array', items: GROUP_SUMMARY } },
        404: { description: 'No such cluster' },
        409: { description: 'The cluster is not running' },
      },
      handler: listConsumerGroups,
    }),
    defineRoute<{ params: GroupParams }, StreamingRouteServices>({
      ...BASE,
      method: 'get',
      path: '/v1/streaming/clusters/:id/consumer-groups/:group',
      scopes: READ,
      summary: 'A consumer group and its members',
      request: { params: GROUP_PARAMS },
      responses: {
        200: { description: 'The group', schema: GROUP_DETAIL },
        404: { description: 'No such cluster or group' },
        409: { description: 'The cluster is not running' },
      },
      handler: getConsumerGroup,
    }),
    defineRoute<{ params: GroupParams }, StreamingRouteServices>({
      ...BASE,
      method: 'get',
      path: '/v1/streaming/clusters/:id/consumer-groups/:group/lag',
      scopes: READ,
      summary: "A consumer group's lag, per partition",
      request: { params: GROUP_PARAMS },
      responses: {
        200: { description: 'The lag', schema: LAG_BODY },
        404: { description: 'No such cluster or group' },
        409: { description: 'The cluster is not running' },
      },
      handler: getConsumerGroupLag,
    }),
  ],
};
