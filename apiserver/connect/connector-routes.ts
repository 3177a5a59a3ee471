/** `/connectors…`: the connectors of the addressed cluster, their configuration, state and tasks. */
import { ConnectError, configOf, configPatchOf } from '../../connect/index.js';
import type { WireRoutes } from '../routing/wire-api.js';
import {
  flag,
  param,
  send,
  taskIdOf,
  values,
  type ConnectLocals,
  type ConnectRequest,
} from './wire-format.js';

async function connectorOf(req: ConnectRequest, name: string) {
  const { connect, cluster } = req.locals;
  return connect.get(cluster, name);
}

export function connectorRoutes(router: WireRoutes<ConnectLocals>): void {
  router.get('/connectors', async (req, res) => {
    const { connect, cluster } = req.locals;
    const connectors = await connect.names(cluster);
    const expand = values(req, 'expand');
    if (expand.length === 0) {
      send(
        res,
        200,
        connectors.map((connector) => connector.name),
      );
      return;
    }
    send(
      res,
      200,
      Object.fromEntries(
        connectors.map((connector) => [
          connector.name,
          {
            ...(expand.includes('status') ? { status: connect.status(connector) } : {}),
            ...(expand.includes('info') ? { info: connect.info(connector) } : {}),
          },
        ]),
      ),
    );
  });

  router.post('/connectors', async (req, res) => {
    const { connect, cluster } = req.locals;
    const body = (req.body ?? {}) as { name?: unknown; config?: unknown };
    if (body.config === undefined)
      throw new ConnectError(400, 'the body must hold the connector\u2019s "config"');
    send(res, 201, await connect.create(cluster, body.name, configOf(body.config)));
  });

  router.get('/connectors/:name', async (req, res) => {
    const { connect } = req.locals;
    send(res, 200, connect.info(await connectorOf(req, param(req, 'name'))));
  });

  router.delete('/connectors/:name', async (req, res) => {
    const { connect, cluster } = req.locals;
    await connect.remove(cluster, param(req, 'name'));
    send(res, 204);
  });

  router.get('/connectors/:name/config', async (req, res) => {
    const { connect } = req.locals;
    send(res, 200, connect.maskedConfig(await connectorOf(req, param(req, 'name'))));
  });

  router.put('/connectors/:name/config', async (req, res) => {
    const { connect, cluster } = req.locals;
    const { created, info } = await connect.putConfig(cluster, param(req, 'name'), configOf(req.body));
    send(res, created ? 201 : 200, info);
  });

  router.patch('/connectors/:name/config', async (req, res) => {
    const { connect, cluster } = req.locals;
    send(res, 200, await connect.patchConfig(cluster, param(req, 'name'), configPatchOf(req.body)));
  });

  router.get('/connectors/:name/status', async (req, res) => {
    const { connect } = req.locals;
    send(res, 200, connect.status(await connectorOf(req, param(req, 'name'))));
  });

  router.put('/connectors/:name/pause', async (req, res) => {
    const { connect, cluster } = req.locals;
    await connect.setTargetState(cluster, param(req, 'name'), 'PAUSED');
    send(res, 202);
  });

  router.put('/connectors/:name/resume', async (req, res) => {
    const { connect, cluster } = req.locals;
    await connect.setTargetState(cluster, param(req, 'name'), 'RUNNING');
    send(res, 202);
  });

  router.put('/connectors/:name/stop', async (req, res) => {
    const { connect, cluster } = req.locals;
    await connect.setTargetState(cluster, param(req, 'name'), 'STOPPED');
    send(res, 204);
  });

  router.post('/connectors/:name/restart', async (req, res) => {
    const { connect } = req.locals;
    const connector = await connectorOf(req, param(req, 'name'));
    const options = { includeTasks: flag(req, 'includeTasks'), onlyFailed: flag(req, 'onlyFailed') };
    const status = await connect.restart(connector, options);
    // Kafka Connect answers the plain restart with 204, and one with either flag with 202 and the status.
    if (!options.includeTasks && !options.onlyFailed) send(res, 204);
    else send(res, 202, status);
  });

  router.get('/connectors/:name/tasks', async (req, res) => {
    const { connect } = req.locals;
    const connector = await connectorOf(req, param(req, 'name'));
    const config = connect.maskedConfig(connector);
    send(
      res,
      200,
      connect.info(connector).tasks.map((id) => ({ id, config })),
    );
  });

  router.get('/connectors/:name/tasks/:task/status', async (req, res) => {
    const { connect } = req.locals;
    send(res, 200, connect.taskStatus(await connectorOf(req, param(req, 'name')), taskIdOf(req)));
  });

  router.post('/connectors/:name/tasks/:task/restart', async (req, res) => {
    const { connect } = req.locals;
    await connect.restartTask(await connectorOf(req, param(req, 'name')), taskIdOf(req));
    send(res, 204);
  });

  router.get('/connectors/:name/topics', async (req, res) => {
    const { connect } = req.locals;
    const connector = await connectorOf(req, param(req, 'name'));
    send(res, 200, { [connector.name]: { topics: connect.topics(connector) } });
  });

  router.put('/connectors/:name/topics/reset', async (req, res) => {
    const { connect } = req.locals;
    connect.resetTopics(await connectorOf(req, param(req, 'name')));
    send(res, 202);
  });
}
