/** Debezium's MongoDB source: its configuration keys (connect/unavailable-connectors.ts says why it does not run). */
import { DEBEZIUM_VERSION } from '../../change-envelope.js';
import { CONNECTOR_COMMON, prefixProblems, TOPIC_PREFIX, type ConnectorPlugin } from '../plugin.js';

/** Debezium's MongoDB source: validated and kept; its task fails naming the server it lacks. */
export const MONGODB_SOURCE: ConnectorPlugin = {
  class: 'io.debezium.connector.mongodb.MongoDbConnector',
  type: 'source',
  version: DEBEZIUM_VERSION,
  definitions: [
    ...CONNECTOR_COMMON,
    {
      name: 'mongodb.connection.string',
      type: 'PASSWORD',
      required: true,
      group: 'Connection',
      documentation:
        'The replica set\u2019s connection string: mongodb://user:password@host:port/?replicaSet=rs0.',
    },
    { name: 'mongodb.user', type: 'STRING', required: false, group: 'Connection', documentation: 'User.' },
    {
      name: 'mongodb.password',
      type: 'PASSWORD',
      required: false,
      group: 'Connection',
      documentation: 'Password.',
    },
    TOPIC_PREFIX,
    {
      name: 'database.include.list',
      type: 'LIST',
      required: false,
      defaultValue: '',
      group: 'Filters',
      documentation: 'The databases captured, comma-separated; every database when empty.',
    },
    {
      name: 'collection.include.list',
      type: 'LIST',
      required: false,
      defaultValue: '',
      group: 'Filters',
      documentation: 'The collections captured, comma-separated database.collection; every one when empty.',
    },
    {
      name: 'capture.mode',
      type: 'STRING',
      required: false,
      defaultValue: 'change_streams_update_full',
      allowed: ['change_streams', 'change_streams_update_full'],
      group: 'Connector',
      documentation: 'Whether an update carries the whole document.',
    },
  ],
  crossCheck(config): Record<string, string[]> {
    const problems = prefixProblems(config);
    const url = config['mongodb.connection.string'];
    if (url !== undefined && url !== '' && !/^mongodb(\+srv)?:\/\/[^/?]+/.test(url)) {
      problems['mongodb.connection.string'] = ['must be a mongodb:// or mongodb+srv:// connection string'];
    }
    return problems;
  },
};
