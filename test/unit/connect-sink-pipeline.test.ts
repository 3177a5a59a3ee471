import type { KafkaMessage } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsumedRecord } from '../../connect/error-handling.js';
import { S3SinkTask } from '../../connect/connectors/s3-sink/task.js';
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
  it('drops what a transform filters out, adds the offset InsertField asks for, and commits past the dropped', async () => {
    const { sink } = pipeline({
      transforms: 'skip,at',
      'transforms.skip.type': 'org.apache.kafka.connect.transforms.Filter',
      'transforms.skip.predicate': 'marked',
      'transforms.at.type': 'org.apache.kafka.connect.transforms.InsertField$Value',
      'transforms.at.offset.field': 'at',
      predicates: 'marked',
      'predicates.marked.type': 'org.apache.kafka.connect.transforms.predicates.HasHeaderKey',
      'predicates.marked.name': 'skip',
    });
    const committable = await sink.deliver('orders', 0, [
      message(10, '{"n":10}', { skip: Buffer.from('yes') }),
      message(11, '{"n":11}'),
      message(12, '{"n":12}', { skip: Buffer.from('yes') }),
    ]);
    expect(committable).toEqual([{ topic: 'orders', partition: 0, offset: 13 }]);
    const objects = s3.objects(S3.bucket);
    expect(objects.get('topics/orders/partition=0/orders+0+0000000011.json')?.toString()).toBe(
      '{"n":11,"at":11}\n',
    );
    expect(objects.has('topics/orders/partition=0/orders+0+0000000010.json')).toBe(false);
    expect(objects.has('topics/orders/partition=0/orders+0+0000000012.json')).toBe(false);
  });

  it('commits past dropped records only once the sink has written those before them', async () => {
    const { sink } = pipeline({
      'flush.size': '2',
      transforms: 'skip',
      'transforms.skip.type': 'org.apache.kafka.connect.transforms.Filter',
      'transforms.skip.predicate': 'marked',
      predicates: 'marked',
      'predicates.marked.type': 'org.apache.kafka.connect.transforms.predicates.HasHeaderKey',
      'predicates.marked.name': 'skip',
    });
    expect(
      await sink.deliver('orders', 1, [
        message(30, '{"n":30}'),
        message(31, '{}', { skip: Buffer.from('') }),
      ]),
    ).toEqual([]);
    expect(await sink.deliver('orders', 1, [message(32, '{}', { skip: Buffer.from('') })])).toEqual([]);
    expect(
      await sink.deliver('orders', 1, [
        message(33, '{"n":33}'),
        message(34, '{}', { skip: Buffer.from('') }),
      ]),
    ).toEqual([{ topic: 'orders', partition: 1, offset: 35 }]);
  });

  it('reports a transform\u2019s failure under its own class, with the exception it threw', async () => {
    const { sink, dead } = pipeline({
      'errors.tolerance': 'all',
      'errors.deadletterqueue.topic.name': 'orders-dlq',
      'errors.deadletterqueue.context.headers.enable': 'true',
      transforms: 'number',
      'transforms.number.type': 'org.apache.kafka.connect.transforms.Cast$Value',
      'transforms.number.spec': 'n:int32',
    });
    const committable = await sink.deliver('orders', 2, [
      message(40, '{"n":"forty"}'),
      message(41, '{"n":"41"}'),
    ]);
    expect(committable).toEqual([{ topic: 'orders', partition: 2, offset: 42 }]);
    expect(s3.objects(S3.bucket).get('topics/orders/partition=2/orders+2+0000000041.json')?.toString()).toBe(
      '{"n":41}\n',
    );
    expect(dead.map((entry) => entry.record.offset)).toEqual([40]);
    expect(dead[0]!.headers).toMatchObject({
      '__connect.errors.stage': 'TRANSFORMATION',
      '__connect.errors.class.name': 'org.apache.kafka.connect.transforms.Cast$Value',
      '__connect.errors.exception.class.name': 'org.apache.kafka.connect.errors.DataException',
      '__connect.errors.exception.message': 'Value (forty) was out of range for requested data type',
    });
  });

  it('fails the task on a transform\u2019s failure without tolerance, naming the transform', async () => {
    const { sink } = pipeline({
      transforms: 'number',
      'transforms.number.type': 'org.apache.kafka.connect.transforms.Cast$Value',
      'transforms.number.spec': 'n:int32',
    });
    await expect(sink.deliver('orders', 3, [message(50, '{"n":"fifty"}')])).rejects.toThrow(
      "Tolerance exceeded in error handler. Executing stage 'TRANSFORMATION' with class 'org.apache.kafka.connect.transforms.Cast$Value', where consumed record is {topic='orders', partition=3, offset=50,",
    );
  });
});
