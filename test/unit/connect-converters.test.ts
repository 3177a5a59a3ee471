import { describe, expect, it } from 'vitest';
import type { ConnectSchema } from '../../connect/connect-record.js';
import { DataException, RetriableException } from '../../connect/connect-exceptions.js';
import { avroSchemaOf, connectSchemaOfAvro } from '../../connect/converters/avro-converter.js';
import { converterFor, converterProblems } from '../../connect/converters/index.js';
import { connectSchemaOfJson, jsonSchemaOf } from '../../connect/converters/json-schema-converter.js';
import { subjectNameStrategyOf } from '../../connect/converters/schema-registry-client.js';
import {
  deadLetterHeadersOf,
  ErrorHandler,
  errorHandlingSettingsOf,
  ToleranceExceededException,
  type ConsumedRecord,
  type ProcessingFailure,
} from '../../connect/error-handling.js';

const bytes = (text: string) => Buffer.from(text);
const ORDER: ConnectSchema = {
  type: 'struct',
  name: 'shop.Order',
  fields: [
    { field: 'id', type: 'int64' },
    { field: 'item', type: 'string' },
    { field: 'qty', type: 'int32', optional: true },
    { field: 'placed', type: 'int64', name: 'org.apache.kafka.connect.data.Timestamp', version: 1 },
    { field: 'tags', type: 'array', items: { type: 'string' } },
  ],
};

describe('JsonConverter', () => {
  const json = (config: Record<string, string> = {}) => converterFor(config, 'value');

  it.each([
    ['{"id":1}', { value: { id: 1 } }],
    ['{"schema":{"type":"int64"},"payload":5}', { schema: { type: 'int64' }, value: 5 }],
    ['{"schema":null,"payload":{"a":1}}', { value: { a: 1 } }],
    ['{"schema":{"type":"bytes"},"payload":"aGk="}', { schema: { type: 'bytes' }, value: Buffer.from('hi') }],
    ['"text"', { value: 'text' }],
  ])('reads %s with schemas.enable=true', async (text, converted) => {
    expect(await json().toConnectData('orders', bytes(text))).toEqual(converted);
  });

  it('reads an envelope as a plain object with schemas.enable=false', async () => {
    const text = '{"schema":{"type":"int64"},"payload":5}';
    expect(await json({ 'value.converter.schemas.enable': 'false' }).toConnectData('t', bytes(text))).toEqual(
      {
        value: { schema: { type: 'int64' }, payload: 5 },
      },
    );
  });

  it('reads no bytes as a tombstone and refuses bytes that are not JSON', async () => {
    expect(await json().toConnectData('t', null)).toEqual({ value: null });
    await expect(json().toConnectData('t', bytes('{oops'))).rejects.toThrow(
      /Converting byte\[\] to Kafka Connect data failed due to serialization error/,
    );
    await expect(json().toConnectData('t', bytes('{oops'))).rejects.toBeInstanceOf(DataException);
  });

  it('writes a record with a schema in the envelope, one without as plain JSON', async () => {
    const schema: ConnectSchema = { type: 'struct', fields: [{ field: 'b', type: 'bytes' }] };
    const enveloped = await json().fromConnectData('t', schema, { b: Buffer.from('hi') });
    expect(JSON.parse(enveloped!.toString())).toEqual({ schema, payload: { b: 'aGk=' } });
    expect((await json().fromConnectData('t', undefined, { a: 1 }))!.toString()).toBe('{"a":1}');
    const plain = await json({ 'value.converter.schemas.enable': 'false' }).fromConnectData('t', schema, {
      b: null,
    });
    expect(plain!.toString()).toBe('{"b":null}');
  });

  it('writes a transform\u2019s Timestamp, Date and Time as the numbers Connect writes for them', async () => {
    const schema: ConnectSchema = {
      type: 'struct',
      fields: [
        { field: 'at', type: 'int64', name: 'org.apache.kafka.connect.data.Timestamp', version: 1 },
        { field: 'on', type: 'int32', name: 'org.apache.kafka.connect.data.Date', version: 1 },
        { field: 'time', type: 'int32', name: 'org.apache.kafka.connect.data.Time', version: 1 },
      ],
    };
    const moment = new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6));
    const written = await json().fromConnectData('t', schema, { at: moment, on: moment, time: moment });
    expect(JSON.parse(written!.toString()).payload).toEqual({
      at: moment.getTime(),
      on: 20455,
      time: ((3 * 60 + 4) * 60 + 5) * 1000 + 6,
    });
    // Without a schema, a Date is its milliseconds.
    expect((await json().fromConnectData('t', undefined, { at: moment }))!.toString()).toBe(
      `{"at":${moment.getTime()}}`,
    );
  });
});

describe('StringConverter and ByteArrayConverter', () => {
  it('reads a string key with its schema and writes it back', async () => {
    const converter = converterFor(
      { 'key.converter': 'org.apache.kafka.connect.storage.StringConverter' },
      'key',
    );
    expect(await converter.toConnectData('t', bytes('row-0'))).toEqual({
      schema: { type: 'string', optional: true },
      value: 'row-0',
    });
    expect((await converter.fromConnectData('t', undefined, 42))!.toString()).toBe('42');
  });

  it('passes bytes through and refuses what is no bytes', async () => {
    const converter = converterFor({ 'value.converter': 'ByteArrayConverter' }, 'value');
    expect((await converter.toConnectData('t', bytes('\u0001x'))).value).toEqual(bytes('\u0001x'));
    await expect(converter.fromConnectData('t', { type: 'string' }, 'x')).rejects.toThrow(
      /Invalid schema type for ByteArrayConverter: STRING/,
    );
  });
});

describe('converter configuration', () => {
  it.each([
    [
      { 'value.converter': 'com.example.Nope' },
      'value.converter',
      /Class com.example.Nope could not be found/,
    ],
    [{ 'key.converter.schemas.enable': 'maybe' }, 'key.converter.schemas.enable', /either true or false/],
    [
      { 'value.converter': 'io.confluent.connect.avro.AvroConverter' },
      'value.converter.schema.registry.url',
      /Missing required/,
    ],
    [
      {
        'value.converter': 'io.confluent.connect.protobuf.ProtobufConverter',
        'value.converter.schema.registry.url': 'http://registry',
        'value.converter.basic.auth.credentials.source': 'USER_INFO',
      },
      'value.converter.basic.auth.user.info',
      /user:password/,
    ],
    [
      {
        'value.converter': 'AvroConverter',
        'value.converter.schema.registry.url': 'http://registry',
        'value.converter.value.subject.name.strategy': 'Nope',
      },
      'value.converter.value.subject.name.strategy',
      /one of/,
    ],
  ])('names the problem of %j', (config, key, message) => {
    expect(converterProblems(config)[key]?.join()).toMatch(message);
  });

  it.each([
    [undefined, 'orders-value'],
    ['io.confluent.kafka.serializers.subject.RecordNameStrategy', 'shop.Order'],
    ['TopicRecordNameStrategy', 'orders-shop.Order'],
  ])('names the subject with %s as %s', (strategy, subject) => {
    const config: Record<string, string> = strategy ? { 'value.subject.name.strategy': strategy } : {};
    expect(subjectNameStrategyOf(config, false)!('orders', false, 'shop.Order')).toBe(subject);
  });
});

describe('registry schemas as Connect schemas', () => {
  it('writes a struct as an Avro record and reads the record back as the struct', () => {
    const avro = avroSchemaOf(ORDER);
    expect(avro).toEqual({
      type: 'record',
      name: 'Order',
      namespace: 'shop',
      fields: [
        { name: 'id', type: 'long' },
        { name: 'item', type: 'string' },
        { name: 'qty', type: ['null', 'int'], default: null },
        { name: 'placed', type: { type: 'long', logicalType: 'timestamp-millis' } },
        { name: 'tags', type: { type: 'array', items: 'string' } },
      ],
    });
    expect(connectSchemaOfAvro(avro)).toEqual(ORDER);
  });

  it('writes a named struct met again as a reference to its first definition', () => {
    const row: ConnectSchema = {
      type: 'struct',
      name: 'shop.public.items.Value',
      optional: true,
      fields: [{ field: 'id', type: 'int32' }],
    };
    const envelope: ConnectSchema = {
      type: 'struct',
      name: 'shop.public.items.Envelope',
      fields: [
        { ...row, field: 'before' },
        { ...row, field: 'after' },
      ],
    };
    const avro = avroSchemaOf(envelope) as unknown as { fields: { name: string; type: unknown }[] };
    expect(avro.fields.map((field) => field.type)).toEqual([
      [
        'null',
        {
          type: 'record',
          name: 'Value',
          namespace: 'shop.public.items',
          fields: [{ name: 'id', type: 'int' }],
        },
      ],
      ['null', 'shop.public.items.Value'],
    ]);
    expect(connectSchemaOfAvro(avro as never)).toEqual(envelope);
  });

  it('refuses Avro unions Connect has no type for', () => {
    expect(() => connectSchemaOfAvro(['int', 'string'])).toThrow(/unions other than \[null, type\]/);
  });

  it('writes a struct as a JSON Schema and reads it back', () => {
    const json = jsonSchemaOf(ORDER);
    expect(json).toMatchObject({
      type: 'object',
      title: 'shop.Order',
      required: ['id', 'item', 'placed', 'tags'],
      properties: { qty: { oneOf: [{ type: 'null' }, { type: 'integer', 'connect.type': 'int32' }] } },
    });
    const back = connectSchemaOfJson(json);
    expect(back.fields!.map((field) => [field.field, field.type, field.optional])).toEqual([
      ['id', 'int64', false],
      ['item', 'string', false],
      ['qty', 'int32', true],
      ['placed', 'int64', false],
      ['tags', 'array', false],
    ]);
  });
});

const consumed: ConsumedRecord = {
  topic: 'orders',
  partition: 2,
  offset: 41,
  timestamp: 1_700_000_000_000,
  key: null,
  value: bytes('{oops'),
  headers: [],
};

describe('error handling', () => {
  const handler = (config: Record<string, string>) => {
    const reported: ProcessingFailure[] = [];
    const slept: number[] = [];
    let clock = 0;
    const errors = new ErrorHandler(errorHandlingSettingsOf(config), {
      report: async (failure) => {
        reported.push(failure);
      },
      sleep: async (ms) => {
        slept.push(ms);
        clock += ms;
      },
      now: () => clock,
    });
    return { errors, reported, slept };
  };
  const failing = (error: Error) => async () => {
    throw error;
  };

  it('fails with none, naming the stage, the class and the record, after reporting', async () => {
    const { errors, reported } = handler({});
    const run = errors.execute(
      'VALUE_CONVERTER',
      'org.apache.kafka.connect.json.JsonConverter',
      consumed,
      failing(new DataException('bad')),
    );
    await expect(run).rejects.toBeInstanceOf(ToleranceExceededException);
    await expect(run).rejects.toThrow(
      "Tolerance exceeded in error handler. Executing stage 'VALUE_CONVERTER' with class 'org.apache.kafka.connect.json.JsonConverter', where consumed record is {topic='orders', partition=2, offset=41",
    );
    expect(reported).toHaveLength(1);
  });

  it('skips the record with all', async () => {
    const { errors, reported } = handler({ 'errors.tolerance': 'all' });
    expect(
      await errors.execute('KEY_CONVERTER', 'k', consumed, failing(new DataException('bad'))),
    ).toBeUndefined();
    expect(reported.map((failure) => failure.stage)).toEqual(['KEY_CONVERTER']);
  });

  it('retries what is retriable until errors.retry.timeout, the delay doubling up to its cap', async () => {
    const { errors, slept } = handler({
      'errors.tolerance': 'all',
      'errors.retry.timeout': '3000',
      'errors.retry.delay.max.ms': '1000',
    });
    expect(
      await errors.execute('TASK_PUT', 's', consumed, failing(new RetriableException('later'))),
    ).toBeUndefined();
    expect(slept).toEqual([300, 600, 1000, 1000, 100]);
    let attempts = 0;
    const succeeds = await errors.execute('TASK_PUT', 's', consumed, async () => {
      attempts += 1;
      if (attempts < 3) throw new RetriableException('later');
      return 'written';
    });
    expect(succeeds).toEqual({ value: 'written' });
  });

  it('never retries what is not retriable', async () => {
    const { errors, slept } = handler({ 'errors.tolerance': 'all', 'errors.retry.timeout': '-1' });
    await errors.execute('TASK_PUT', 's', consumed, failing(new DataException('bad')));
    expect(slept).toEqual([]);
  });

  it('writes the context headers Kafka writes', () => {
    const error = new DataException('Unknown magic byte!');
    const headers = deadLetterHeadersOf(
      {
        stage: 'VALUE_CONVERTER',
        className: 'io.confluent.connect.avro.AvroConverter',
        record: consumed,
        error,
      },
      'orders-db',
      1,
    );
    expect(headers).toEqual({
      '__connect.errors.topic': 'orders',
      '__connect.errors.partition': '2',
      '__connect.errors.offset': '41',
      '__connect.errors.connector.name': 'orders-db',
      '__connect.errors.task.id': '1',
      '__connect.errors.stage': 'VALUE_CONVERTER',
      '__connect.errors.class.name': 'io.confluent.connect.avro.AvroConverter',
      '__connect.errors.exception.class.name': 'org.apache.kafka.connect.errors.DataException',
      '__connect.errors.exception.message': 'Unknown magic byte!',
      '__connect.errors.exception.stacktrace': expect.stringMatching(
        /^org\.apache\.kafka\.connect\.errors\.DataException: Unknown magic byte!\n {4}at /,
      ),
    });
  });
});
