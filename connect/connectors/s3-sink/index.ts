/** Confluent's S3 sink: records written as objects into an S3-compatible bucket; its task is `task.ts`. */
import { S3SinkTask } from './task.js';
import { COMMON, type ConnectorPlugin } from '../plugin.js';

export const S3_SINK: ConnectorPlugin = {
  class: 'io.confluent.connect.s3.S3SinkConnector',
  type: 'sink',
  sinkTask: (config) => new S3SinkTask(config),
  version: '10.5.13',
  definitions: [
    ...COMMON,
    { name: 's3.bucket.name', type: 'STRING', required: true, group: 'S3', documentation: 'The bucket.' },
    {
      name: 's3.region',
      type: 'STRING',
      required: false,
      defaultValue: 'us-west-2',
      group: 'S3',
      documentation: 'The bucket\u2019s region.',
    },
    {
      name: 'store.url',
      type: 'STRING',
      required: false,
      group: 'S3',
      documentation: 'The endpoint of an S3-compatible store; AWS S3 of the region when unset.',
    },
    {
      name: 'aws.access.key.id',
      type: 'STRING',
      required: false,
      defaultValue: '',
      group: 'S3',
      documentation: 'Access key id.',
    },
    {
      name: 'aws.secret.access.key',
      type: 'PASSWORD',
      required: false,
      defaultValue: '',
      group: 'S3',
      documentation: 'Secret access key.',
    },
    {
      name: 'flush.size',
      type: 'INT',
      required: true,
      group: 'Connector',
      documentation: 'Records written per object.',
    },
    {
      name: 'topics.dir',
      type: 'STRING',
      required: false,
      defaultValue: 'topics',
      group: 'Connector',
      documentation: 'The top folder of the objects.',
    },
  ],
  crossCheck(config): Record<string, string[]> {
    const url = config['store.url'];
    if (url === undefined || url === '') return {};
    try {
      const parsed = new URL(url);
      return ['http:', 'https:'].includes(parsed.protocol) ? {} : { 'store.url': ['must be an http(s) URL'] };
    } catch {
      return { 'store.url': ['must be an http(s) URL'] };
    }
  },
};
