/** `/connectors/:name/offsets`: a sink's consumer-group offsets, altered or reset only when it is stopped. */
import { ConnectError, type SinkOffset } from '../../connect/index.js';
import type { WireRoutes } from '../routing/wire-api.js';
import { param, send, type ConnectLocals } from './wire-format.js';

function sinkOffsetsOf(body: unknown): SinkOffset[] {
  const offsets = (body as { offsets?: unknown } | undefined)?.offsets;
  const valid =
    Array.isArray(offsets) &&
    offsets.every((entry: unknown) => {
      const { partition, offset } = (entry ?? {}) as Partial<SinkOffset>;
      return (
        typeof partition?.kafka_topic === 'string' &&
        Number.isInteger(partition.kafka_partition) &&
        (offset === null || (Number.isInteger(offset?.kafka_offset) && offset!.kafka_offset >= 0))
      );
    });
  if (!valid) {
    throw new ConnectError(
      400,
      'the body must be {"offsets": [{"partition": {"kafka_topic", "kafka_partition"}, "offset": {"kafka_offset"} or null}]}',
    );
  }
  return offsets as SinkOffset[];
}

export function offsetRoutes(router: WireRoutes<ConnectLocals>): void {
  router.get('/connectors/:name/offsets', async (req, res) => {
    const { connect, cluster } = req.locals;
    const connector = await connect.get(cluster, param(req, 'name'));
    send(res, 200, { offsets: await connect.offsets(connector) });
  });

  router.patch('/connectors/:name/offsets', async (req, res) => {
    const { connect, cluster } = req.locals;
    const connector = await connect.get(cluster, param(req, 'name'));
    await connect.alterOffsets(connector, sinkOffsetsOf(req.body));
    send(res, 200, { message: 'The offsets for this connector have been altered successfully' });
  });

  router.delete('/connectors/:name/offsets', async (req, res) => {
    const { connect, cluster } = req.locals;
    const connector = await connect.get(cluster, param(req, 'name'));
    await connect.resetOffsets(connector);
    send(res, 200, { message: 'The offsets for this connector have been reset successfully' });
  });
}
