import { describe, expect, it } from 'vitest';
import type { SourceRecord } from '../../connect/change-envelope.js';
import { SourcePipeline } from '../../connect/source-pipeline.js';

const change: SourceRecord = {
  topic: 'shop.public.orders',
  key: { id: 1 },
  value: {
    before: null,
    after: { id: 1, item: 'book' },
    op: 'c',
    source: {
      version: '2.7.3.Final',
      connector: 'postgresql',
      name: 'shop',
      db: 'shop',
      table: 'orders',
      ts_ms: 5,
    },
    ts_ms: 6,
  },
};

describe('a source task\u2019s pipeline', () => {
  it('writes a change as plain JSON under the default converters, as before converters were served', async () => {
    const [message] = await new SourcePipeline({}).messagesOf([change]);
    expect(message!.topic).toBe('shop.public.orders');
    expect(message!.key!.toString()).toBe(JSON.stringify(change.key));
    expect(message!.value!.toString()).toBe(JSON.stringify(change.value));
  });

  it('writes a record with a schema in the envelope, or plain with schemas.enable=false', async () => {
    const valueSchema = { type: 'struct' as const, fields: [{ field: 'n', type: 'int32' as const }] };
    const typed = { ...change, key: null, value: change.value, valueSchema };
    const [enveloped] = await new SourcePipeline({}).messagesOf([typed]);
    expect(JSON.parse(enveloped!.value!.toString())).toEqual({ schema: valueSchema, payload: change.value });
    const [plain] = await new SourcePipeline({ 'value.converter.schemas.enable': 'false' }).messagesOf([
      typed,
    ]);
    expect(plain!.value!.toString()).toBe(JSON.stringify(change.value));
    expect(plain!.key).toBeNull();
  });

  it('fails naming the stage and the converter when a registry converter gets a record without a schema', async () => {
    const pipeline = new SourcePipeline({
      'value.converter': 'io.confluent.connect.avro.AvroConverter',
      'value.converter.schema.registry.url': 'http://127.0.0.1:9/registry',
    });
    await expect(pipeline.messagesOf([change])).rejects.toThrow(
      "Executing stage 'VALUE_CONVERTER' with class 'io.confluent.connect.avro.AvroConverter' failed for a record of shop.public.orders",
    );
  });
  it('applies the transforms before the converters, a dropped record not written', async () => {
    const pipeline = new SourcePipeline({
      'value.converter.schemas.enable': 'false',
      transforms: 'onlyInserts,route',
      'transforms.onlyInserts.type': 'org.apache.kafka.connect.transforms.Filter',
      'transforms.onlyInserts.predicate': 'audit',
      'transforms.route.type': 'org.apache.kafka.connect.transforms.RegexRouter',
      'transforms.route.regex': 'shop\\.public\\.(.*)',
      'transforms.route.replacement': 'orders-$1',
      predicates: 'audit',
      'predicates.audit.type': 'org.apache.kafka.connect.transforms.predicates.TopicNameMatches',
      'predicates.audit.pattern': '.*\\.audit',
    });
    const messages = await pipeline.messagesOf([change, { ...change, topic: 'shop.public.audit' }]);
    expect(messages.map((message) => message.topic)).toEqual(['orders-orders']);
  });

  it('fails naming the transform that failed', async () => {
    const pipeline = new SourcePipeline({
      transforms: 'pick',
      'transforms.pick.type': 'org.apache.kafka.connect.transforms.ExtractField$Value',
      'transforms.pick.field': 'after',
    });
    await expect(pipeline.messagesOf([{ ...change, value: 'not a struct' as never }])).rejects.toThrow(
      "Executing stage 'TRANSFORMATION' with class 'org.apache.kafka.connect.transforms.ExtractField$Value' failed for a record of shop.public.orders",
    );
  });
});
