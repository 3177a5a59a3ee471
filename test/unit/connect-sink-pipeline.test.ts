import type { KafkaMessage } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsumedRecord } from '../../connect/error-handling.js';
import { S3SinkTask } from '../../connect/s3-sink.js';
import { SinkPipeline } from '../../connect/sink-pipeline.js';
import { capturedLogger } from '../fixtures/captured-logger.js';
import { startS3Server, type S3Server } from '../fixtures/s3-server.js';

const S3 = { region: 'eu-west-1', accessKeyId: 'AKIDPIPE', secretAccessKey: 'pipe-secret', bucket: 'pipe' };
let s3: S3Server;

beforeAll(async () => {
  s3 = await startS3Server({ ...S3, buckets: [S3.bucket] });
});
afterAll(async () => s3?.close());

const message = (offset: number, value: string, headers: KafkaMessage['headers'] = {}): KafkaMessage =>
  ({
    key: Buffer.from(`k${offset}`),
    value: Buffer.from(value),
    offset: String(offset),
    timestamp: '1700000000000',
    attributes: 0,
    headers,
  }) as KafkaMessage;

function pipeline(errors: Record<string, string>) {
  const config = {
    'connector.class': 'io.confluent.connect.s3.S3SinkConnector',
    topics: 'orders',
    's3.bucket.name': S3.bucket,
    's3.region': S3.region,
    'store.url': s3.url,
    'aws.access.key.id': S3.accessKeyId,
    'aws.secret.access.key': S3.secretAccessKey,
    'flush.size': '1',
    'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
    'value.converter.schemas.enable': 'false',
    ...errors,
  };
  const { logger, lines } = capturedLogger();
  const dead: { record: ConsumedRecord; headers: Record<string, string> }[] = [];
  const sink = new SinkPipeline({
    connector: 'archive',
    taskId: 2,
    config,
    sink: new S3SinkTask(config),
    logger,
    deadLetter: async (record, headers) => {
      dead.push({ record, headers });
    },
    now: () => 0,
    sleep: async () => undefined,
  });
  return { sink, lines, dead };
}

describe('a sink task\u2019s pipeline', () => {
  it('skips a poison record with tolerance all, logs it with its message, and commits past it', async () => {
    const { sink, lines, dead } = pipeline({
      'errors.tolerance': 'all',
      'errors.log.enable': 'true',
      'errors.log.include.messages': 'true',
      'errors.deadletterqueue.topic.name': 'orders-dlq',
      'errors.deadletterqueue.context.headers.enable': 'true',
    });
    const committable = await sink.deliver('orders', 0, [
      message(7, '{"n":7}'),
      message(8, '{oops', { trace: Buffer.from('abc') }),
    ]);
    // The record after the last one written was dropped: done with too.
    expect(committable).toEqual([{ topic: 'orders', partition: 0, offset: 9 }]);
    expect([...s3.objects(S3.bucket).keys()]).toEqual(['topics/orders/partition=0/orders+0+0000000007.json']);
    expect(dead).toHaveLength(1);
    expect(dead[0]!.record).toMatchObject({
      offset: 8,
      headers: [{ key: 'trace', value: Buffer.from('abc') }],
    });
    expect(dead[0]!.headers).toMatchObject({
      '__connect.errors.stage': 'VALUE_CONVERTER',
      '__connect.errors.task.id': '2',
      '__connect.errors.class.name': 'org.apache.kafka.connect.json.JsonConverter',
    });
    const logged = lines.find((line) => line.stage === 'VALUE_CONVERTER')!;
    expect(logged.msg).toContain(
      "Error encountered in task archive-2. Executing stage 'VALUE_CONVERTER' with class 'org.apache.kafka.connect.json.JsonConverter', where consumed record is {topic='orders', partition=0, offset=8, timestamp=1700000000000, timestampType=CreateTime, key=k8, value={oops, headers=[trace=abc]}.",
    );
  });

  it('logs nothing of the record without errors.log.include.messages, and nothing at all without errors.log.enable', async () => {
    const quiet = pipeline({ 'errors.tolerance': 'all' });
    await quiet.sink.deliver('orders', 0, [message(3, '{oops')]);
    expect(quiet.lines.filter((line) => line.stage)).toEqual([]);
    const brief = pipeline({ 'errors.tolerance': 'all', 'errors.log.enable': 'true' });
    await brief.sink.deliver('orders', 0, [message(4, '{oops')]);
    const logged = brief.lines.find((line) => line.stage === 'VALUE_CONVERTER')!;
    expect(logged.msg).toMatch(/offset=4, timestamp=1700000000000, timestampType=CreateTime\}\.$/);
    expect(JSON.stringify(logged)).not.toContain('{oops');
  });

  it('fails without tolerance, naming the stage and the record', async () => {
    const { sink } = pipeline({});
    await expect(sink.deliver('orders', 0, [message(5, 'x')])).rejects.toThrow(
      "Tolerance exceeded in error handler. Executing stage 'VALUE_CONVERTER' with class 'org.apache.kafka.connect.json.JsonConverter', where consumed record is {topic='orders', partition=0, offset=5,",
    );
  });
});
