import { Writer } from '../protocol/codec.js';
import { ErrorCode } from '../errors.js';
import type { ApiModule } from './api.js';
import { OPERATIONS_OMITTED } from './authorized-operations.js';

/** DescribeCluster's endpoint type of brokers (2 would ask for the controllers). */
const BROKER_ENDPOINTS = 1;

/**
 * DescribeCluster: the cluster id, the broker ids at the addresses clients reach them, and the
 * controller (the first broker, as Metadata says). The brokers run no separate controllers, so
 * asking for controller endpoints is UNSUPPORTED_VERSION as on a broker that has none to show.
 */
export const describeCluster: ApiModule = {
  key: 60,
  name: 'DescribeCluster',
  minVersion: 0,
  maxVersion: 1,
  flexibleVersion: 0,
  handle(context, reader) {
    const { version, cluster } = context;
    const operationsAsked = reader.bool();
    const endpointType = version >= 1 ? reader.int8() : BROKER_ENDPOINTS;
    reader.tags();
    const writer = new Writer(context.flexible).int32(0);
    if (endpointType !== BROKER_ENDPOINTS) {
      writer
        .int16(ErrorCode.UNSUPPORTED_VERSION)
        .nullableString('The broker has no controller endpoints to show.');
      if (version >= 1) writer.int8(endpointType);
      return writer
        .string(cluster.clusterId)
        .int32(-1)
        .array([], () => undefined)
        .int32(OPERATIONS_OMITTED)
        .tags();
    }
    writer.int16(ErrorCode.NONE).nullableString(null);
    if (version >= 1) writer.int8(endpointType);
    writer.string(cluster.clusterId).int32(cluster.brokers[0]!.nodeId);
    writer.array(cluster.brokers, (w, broker) =>
      w.int32(broker.nodeId).string(broker.host).int32(broker.port).nullableString(null).tags(),
    );
    // Cluster operations are outside the platform's ACLs: a client that asks is told none.
    return writer.int32(operationsAsked ? 0 : OPERATIONS_OMITTED).tags();
  },
};
