/** Confluent's Elasticsearch sink: its configuration keys (connect/unavailable-connectors.ts says why it does not run). */
import { COMMON, listOf, type ConnectorPlugin } from '../plugin.js';

/** Confluent's Elasticsearch sink: validated and kept; its task fails naming the server it lacks. */
export const ELASTICSEARCH_SINK: ConnectorPlugin = {
  class: 'io.confluent.connect.elasticsearch.ElasticsearchSinkConnector',
  type: 'sink',
  version: '14.1.2',
  definitions: [
    ...COMMON,
    {
      name: 'connection.url',
      type: 'LIST',
      required: true,
      group: 'Connector',
      documentation: 'The Elasticsearch (or OpenSearch) URLs, comma-separated: http://host:9200.',
    },
    {
      name: 'connection.username',
      type: 'STRING',
      required: false,
      group: 'Security',
      documentation: 'User.',
    },
    {
      name: 'connection.password',
      type: 'PASSWORD',
      required: false,
      group: 'Security',
      documentation: 'Password.',
    },
    {
      name: 'key.ignore',
      type: 'BOOLEAN',
      required: false,
      defaultValue: 'false',
      group: 'Data Conversion',
      documentation: 'Whether document ids are topic+partition+offset rather than the record key.',
    },
    {
      name: 'schema.ignore',
      type: 'BOOLEAN',
      required: false,
      defaultValue: 'false',
      group: 'Data Conversion',
      documentation: 'Whether the index mapping is left to the server rather than made from the schema.',
    },
    {
      name: 'type.name',
      type: 'STRING',
      required: false,
      defaultValue: '_doc',
      group: 'Data Conversion',
      documentation: 'The document type, for servers older than Elasticsearch 7.',
    },
    {
      name: 'behavior.on.null.values',
      type: 'STRING',
      required: false,
      defaultValue: 'fail',
      allowed: ['ignore', 'delete', 'fail'],
      group: 'Data Conversion',
      documentation: 'What a tombstone does.',
    },
  ],
  crossCheck(config): Record<string, string[]> {
    const bad = listOf(config['connection.url']).filter((url) => {
      try {
        return !['http:', 'https:'].includes(new URL(url).protocol);
      } catch {
        return true;
      }
    });
    return bad.length > 0 ? { 'connection.url': bad.map((url) => `${url} is not an http(s) URL`) } : {};
  },
};
