import { describe, expect, it } from 'vitest';
import type { ConnectRecord, ConnectSchema } from '../../connect/connect-record.js';
import {
  transformChain,
  transformationConfigInfo,
  TransformChainConfigError,
  TransformError,
} from '../../connect/transforms/index.js';

const K = 'org.apache.kafka.connect.transforms.';
const P = 'org.apache.kafka.connect.transforms.predicates.';
const TS = 'org.apache.kafka.connect.data.Timestamp';

type Sinkish = ConnectRecord & { offset?: number };

function record(overrides: Partial<Sinkish> = {}): Sinkish {
  return {
    topic: 'orders',
    partition: 3,
    timestamp: 1_700_000_000_000,
    key: null,
    value: null,
    headers: [],
    ...overrides,
  };
}

/** One transform under the alias `t`, applied to a record. */
function apply(type: string, keys: Record<string, string>, input: Sinkish): Sinkish | null {
  const config: Record<string, string> = { transforms: 't', 'transforms.t.type': type };
  for (const [key, value] of Object.entries(keys)) config[`transforms.t.${key}`] = value;
  return transformChain(config)(input);
}

function failure(type: string, keys: Record<string, string>, input: Sinkish): string {
  try {
    apply(type, keys, input);
  } catch (error) {
    expect(error).toBeInstanceOf(TransformError);
    return (error as Error).message;
  }
  throw new Error('the transform did not fail');
}

function configProblems(config: Record<string, string>): Record<string, string[]> {
  return transformationConfigInfo(config).problems;
}

const struct = (fields: [string, ConnectSchema][], extra: Partial<ConnectSchema> = {}): ConnectSchema => ({
  type: 'struct',
  ...extra,
  fields: fields.map(([field, schema]) => ({ ...schema, field })),
});

const orderSchema = struct([
  ['id', { type: 'int32' }],
  ['name', { type: 'string', optional: true }],
  ['price', { type: 'float64' }],
]);
const order = { id: 7, name: 'pen', price: 1.5 };

describe('InsertField', () => {
  it('adds topic, partition, offset, timestamp and a static value to a schemaless value', () => {
    const out = apply(
      `${K}InsertField$Value`,
      {
        'topic.field': 'topic',
        'partition.field': 'partition',
        'offset.field': 'offset',
        'timestamp.field': 'ts',
        'static.field': 'source',
        'static.value': 'web',
      },
      record({ value: { a: 1 }, offset: 42 }),
    );
    expect(out?.value).toEqual({
      a: 1,
      topic: 'orders',
      partition: 3,
      offset: 42,
      ts: 1_700_000_000_000,
      source: 'web',
    });
  });

  it('extends the schema, ! making a required field and ? (the default) an optional one', () => {
    const out = apply(
      `${K}InsertField$Value`,
      { 'topic.field': 'topic!', 'timestamp.field': 'ts' },
      record({ value: order, valueSchema: orderSchema }),
    );
    expect(out?.valueSchema?.fields?.slice(3)).toEqual([
      { field: 'topic', type: 'string' },
      { field: 'ts', type: 'int64', name: TS, version: 1, optional: true },
    ]);
    expect(out?.value).toEqual({ ...order, topic: 'orders', ts: new Date(1_700_000_000_000) });
  });

  it('works on the key with $Key and passes a null through', () => {
    expect(apply(`${K}InsertField$Key`, { 'topic.field': 't' }, record({ key: { id: 1 } }))?.key).toEqual({
      id: 1,
      t: 'orders',
    });
    expect(apply(`${K}InsertField$Value`, { 'topic.field': 't' }, record())?.value).toBeNull();
  });

  it('refuses an offset on a source record, as only a SinkRecord has one', () => {
    expect(failure(`${K}InsertField$Value`, { 'offset.field': 'o' }, record({ value: {} }))).toContain(
      'Only SinkRecord supported for [field insertion]',
    );
  });

  it('refuses a value that is not a map, naming the alias', () => {
    expect(failure(`${K}InsertField$Value`, { 'topic.field': 't' }, record({ value: 'text' }))).toBe(
      `transform t (${K}InsertField$Value) failed: Only Map objects supported in absence of schema for [field insertion], found: java.lang.String`,
    );
  });

  it.each([
    [{}, 'transforms.t.type', 'No field insertion configured'],
    [{ 'static.field': 's' }, 'transforms.t.static.value', 'No value specified for static field: s'],
  ])('refuses %j', (keys, key, message) => {
    const config = { transforms: 't', 'transforms.t.type': `${K}InsertField$Value`, ...prefixed(keys) };
    expect(configProblems(config)[key]?.[0]).toContain(message);
  });
});

function prefixed(keys: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(keys).map(([key, value]) => [`transforms.t.${key}`, value]));
}

describe('ReplaceField', () => {
  it.each<[string, Record<string, string>, Record<string, unknown>]>([
    ['include keeps only the named fields', { include: 'id,price' }, { id: 7, price: 1.5 }],
    ['exclude drops the named fields', { exclude: 'name' }, { id: 7, price: 1.5 }],
    ['exclude wins over include', { include: 'id,name', exclude: 'name' }, { id: 7 }],
    ['renames renames', { renames: 'id:order_id,price:amount' }, { order_id: 7, name: 'pen', amount: 1.5 }],
    ['the pre-2.6 whitelist is include', { whitelist: 'id' }, { id: 7 }],
    ['the pre-2.6 blacklist is exclude', { blacklist: 'id,price' }, { name: 'pen' }],
  ])('%s, schemaless and with a schema', (_case, keys, expected) => {
    expect(apply(`${K}ReplaceField$Value`, keys, record({ value: order }))?.value).toEqual(expected);
    const typed = apply(`${K}ReplaceField$Value`, keys, record({ value: order, valueSchema: orderSchema }));
    expect(typed?.value).toEqual(expected);
    expect(typed?.valueSchema?.fields?.map((field) => field.field)).toEqual(Object.keys(expected));
  });

  it('refuses a rename that is no pair', () => {
    const config = {
      transforms: 't',
      'transforms.t.type': `${K}ReplaceField$Value`,
      'transforms.t.renames': 'a:b:c',
    };
    expect(configProblems(config)['transforms.t.renames']).toEqual([
      'Invalid value [a:b:c] for configuration renames: Invalid rename mapping: a:b:c',
    ]);
  });
});

describe('MaskField', () => {
  const schema = struct([
    ['n', { type: 'int32' }],
    ['f', { type: 'float64' }],
    ['b', { type: 'boolean' }],
    ['s', { type: 'string' }],
    ['l', { type: 'array', items: { type: 'string' } }],
    ['d', { type: 'int64', name: TS }],
  ]);
  const value = { n: 5, f: 2.5, b: true, s: 'secret', l: ['x'], d: new Date(5) };

  it('masks each field with its type\u2019s empty value', () => {
    const out = apply(
      `${K}MaskField$Value`,
      { fields: 'n,f,b,s,l,d' },
      record({ value, valueSchema: schema }),
    );
    expect(out?.value).toEqual({ n: 0, f: 0, b: false, s: '', l: [], d: new Date(0) });
    expect(
      apply(`${K}MaskField$Value`, { fields: 's,b' }, record({ value: { s: 'x', b: true, k: 1 } }))?.value,
    ).toEqual({ s: '', b: false, k: 1 });
  });

  it('masks with a replacement converted to the field\u2019s type', () => {
    const out = apply(
      `${K}MaskField$Value`,
      { fields: 'n,s', replacement: '123' },
      record({ value, valueSchema: schema }),
    );
    expect(out?.value).toMatchObject({ n: 123, s: '123' });
  });

  it.each([
    [
      { fields: 'b', replacement: 'x' },
      'Cannot mask value of type class java.lang.Boolean with custom replacement.',
    ],
    [{ fields: 'n', replacement: 'abc' }, 'Unable to convert abc (class java.lang.String) to number'],
  ])('refuses %j', (keys, message) => {
    expect(failure(`${K}MaskField$Value`, keys, record({ value, valueSchema: schema }))).toContain(message);
  });

  it('needs fields', () => {
    expect(
      configProblems({ transforms: 't', 'transforms.t.type': `${K}MaskField$Value` })['transforms.t.fields'],
    ).toEqual(['Missing required configuration "transforms.t.fields" which has no default value.']);
  });
});

describe('ValueToKey', () => {
  it('makes the key from fields of the value, with their schemas', () => {
    const out = apply(`${K}ValueToKey`, { fields: 'id' }, record({ value: order, valueSchema: orderSchema }));
    expect(out?.key).toEqual({ id: 7 });
    expect(out?.keySchema).toEqual(struct([['id', { type: 'int32' }]]));
    expect(apply(`${K}ValueToKey`, { fields: 'id,missing' }, record({ value: order }))?.key).toEqual({
      id: 7,
      missing: null,
    });
  });

  it('refuses a field the schema lacks', () => {
    expect(
      failure(`${K}ValueToKey`, { fields: 'nope' }, record({ value: order, valueSchema: orderSchema })),
    ).toContain('Field does not exist: nope');
  });
});

describe('ExtractField', () => {
  it('replaces the key with one of its fields, with its schema', () => {
    const out = apply(
      `${K}ExtractField$Key`,
      { field: 'id' },
      record({ key: order, keySchema: orderSchema }),
    );
    expect(out?.key).toBe(7);
    expect(out?.keySchema).toEqual({ type: 'int32' });
    expect(apply(`${K}ExtractField$Value`, { field: 'name' }, record({ value: order }))?.value).toBe('pen');
  });

  it('reaches nested fields with field.syntax.version V2, backticks wrapping a dotted name', () => {
    const value = { after: { 'a.b': { id: 9 } } };
    expect(
      apply(
        `${K}ExtractField$Value`,
        { field: 'after.`a.b`.id', 'field.syntax.version': 'V2' },
        record({ value }),
      )?.value,
    ).toBe(9);
    expect(
      apply(`${K}ExtractField$Value`, { field: 'after.a.b' }, record({ value: { 'after.a.b': 1 } }))?.value,
    ).toBe(1);
  });

  it('passes a null through and refuses a field the schema lacks', () => {
    expect(apply(`${K}ExtractField$Value`, { field: 'id' }, record())?.value).toBeNull();
    expect(
      failure(`${K}ExtractField$Value`, { field: 'x' }, record({ value: order, valueSchema: orderSchema })),
    ).toContain('Unknown field: x');
  });
});

describe('HoistField', () => {
  it('wraps the value in a one-field struct or map', () => {
    expect(apply(`${K}HoistField$Value`, { field: 'line' }, record({ value: 'hello' }))?.value).toEqual({
      line: 'hello',
    });
    const out = apply(
      `${K}HoistField$Key`,
      { field: 'id' },
      record({ key: 42, keySchema: { type: 'int64' } }),
    );
    expect(out?.key).toEqual({ id: 42 });
    expect(out?.keySchema).toEqual(struct([['id', { type: 'int64' }]]));
  });
});

describe('Cast', () => {
  it.each<[string, unknown, string, unknown]>([
    ['int32', 42, 'int8', 42],
    ['int32', 300, 'int8', 44],
    ['int64', 5, 'boolean', true],
    ['float64', 3.9, 'int32', 3],
    ['string', '42', 'int16', 42],
    ['string', 'true', 'boolean', true],
    ['boolean', true, 'int32', 1],
    ['float64', 1, 'string', '1.0'],
    ['int32', 1, 'string', '1'],
    ['bytes', Buffer.from('hi'), 'string', 'aGk='],
    ['float64', 1.25, 'float32', 1.25],
  ])('casts a whole %s %j to %s', (from, value, to, expected) => {
    const out = apply(
      `${K}Cast$Value`,
      { spec: to },
      record({ value, valueSchema: { type: from as ConnectSchema['type'] } }),
    );
    expect(out?.value).toEqual(expected);
    expect(out?.valueSchema?.type).toBe(to);
  });

  it('casts fields of a struct and of a map', () => {
    const out = apply(
      `${K}Cast$Value`,
      { spec: 'id:string,price:int32' },
      record({ value: order, valueSchema: orderSchema }),
    );
    expect(out?.value).toEqual({ id: '7', name: 'pen', price: 1 });
    expect(out?.valueSchema?.fields?.map((field) => field.type)).toEqual(['string', 'string', 'int32']);
    expect(apply(`${K}Cast$Value`, { spec: 'id:string' }, record({ value: order }))?.value).toEqual({
      ...order,
      id: '7',
    });
  });

  it('casts a Timestamp to its number of milliseconds', () => {
    const schema = struct([['at', { type: 'int64', name: TS }]]);
    expect(
      apply(
        `${K}Cast$Value`,
        { spec: 'at:int64' },
        record({ value: { at: new Date(1234) }, valueSchema: schema }),
      )?.value,
    ).toEqual({ at: 1234 });
  });

  it.each([
    ['id:array', 'Cast transformation does not support casting to ARRAY'],
    ['id:bogus', 'Invalid type found in casting spec: bogus'],
    ['int32,id:string', 'may only specify a single cast in their spec'],
  ])('refuses the spec %s', (spec, message) => {
    const problems = configProblems({
      transforms: 't',
      'transforms.t.type': `${K}Cast$Value`,
      'transforms.t.spec': spec,
    });
    expect(problems['transforms.t.spec']?.[0]).toContain(message);
  });

  it('refuses a string out of range and a struct to cast', () => {
    expect(
      failure(`${K}Cast$Value`, { spec: 'int8' }, record({ value: '300', valueSchema: { type: 'string' } })),
    ).toContain('Value (300) was out of range for requested data type');
    expect(failure(`${K}Cast$Value`, { spec: 'a:string' }, record({ value: { a: { b: 1 } } }))).toContain(
      'Cast transformation does not support casting from MAP',
    );
  });
});

describe('TimestampConverter', () => {
  const at = Date.UTC(2024, 0, 31, 13, 45, 6, 789);

  it.each<[string, Record<string, string>, unknown, unknown]>([
    [
      'unix to string',
      { 'target.type': 'string', format: "yyyy-MM-dd'T'HH:mm:ss.SSS" },
      at,
      '2024-01-31T13:45:06.789',
    ],
    [
      'string to unix',
      { 'target.type': 'unix', format: 'yyyy-MM-dd HH:mm' },
      '2024-01-31 13:45',
      Date.UTC(2024, 0, 31, 13, 45),
    ],
    ['unix to Timestamp', { 'target.type': 'Timestamp' }, at, new Date(at)],
    ['unix to Date', { 'target.type': 'Date' }, at, new Date(Date.UTC(2024, 0, 31))],
    ['unix to Time', { 'target.type': 'Time' }, at, new Date(at - Date.UTC(2024, 0, 31))],
    [
      'Date to unix seconds',
      { 'target.type': 'unix', 'unix.precision': 'seconds' },
      new Date(at),
      Math.trunc(at / 1000),
    ],
    [
      'unix microseconds to Timestamp',
      { 'target.type': 'Timestamp', 'unix.precision': 'microseconds' },
      at * 1000,
      new Date(at),
    ],
  ])('converts %s, schemaless', (_case, keys, value, expected) => {
    expect(apply(`${K}TimestampConverter$Value`, keys, record({ value }))?.value).toEqual(expected);
  });

  it('converts a field of a struct and gives it the target\u2019s schema', () => {
    const schema = struct([
      ['id', { type: 'int32' }],
      ['at', { type: 'int64' }],
    ]);
    const out = apply(
      `${K}TimestampConverter$Value`,
      { field: 'at', 'target.type': 'Timestamp' },
      record({ value: { id: 1, at }, valueSchema: schema }),
    );
    expect(out?.value).toEqual({ id: 1, at: new Date(at) });
    expect(out?.valueSchema?.fields?.[1]).toEqual({ field: 'at', type: 'int64', name: TS, version: 1 });
  });

  it('refuses a string timestamp without a format, and text the format does not match', () => {
    expect(
      configProblems({
        transforms: 't',
        'transforms.t.type': `${K}TimestampConverter$Value`,
        'transforms.t.target.type': 'string',
      })['transforms.t.format'],
    ).toEqual(['TimestampConverter requires format option to be specified when using string timestamps']);
    expect(
      failure(
        `${K}TimestampConverter$Value`,
        { 'target.type': 'unix', format: 'yyyy-MM-dd' },
        record({ value: 'soon' }),
      ),
    ).toContain('Could not parse timestamp: value (soon) does not match pattern (yyyy-MM-dd)');
  });

  it('refuses a target type Kafka does not know', () => {
    expect(
      configProblems({
        transforms: 't',
        'transforms.t.type': `${K}TimestampConverter$Value`,
        'transforms.t.target.type': 'epoch',
      })['transforms.t.target.type']?.[0],
    ).toContain('Invalid value epoch for configuration transforms.t.target.type');
  });
});

describe('Flatten', () => {
  const nested = { id: 1, customer: { name: 'ada', address: { city: 'Paris' } }, tags: ['a'] };

  it('joins nested names with the delimiter, leaving arrays alone', () => {
    expect(apply(`${K}Flatten$Value`, {}, record({ value: nested }))?.value).toEqual({
      id: 1,
      'customer.name': 'ada',
      'customer.address.city': 'Paris',
      tags: ['a'],
    });
    expect(
      Object.keys(apply(`${K}Flatten$Value`, { delimiter: '_' }, record({ value: nested }))?.value as object),
    ).toContain('customer_address_city');
  });

  it('flattens the schema, a field under an optional parent becoming optional', () => {
    const schema = struct([
      ['id', { type: 'int32' }],
      ['customer', struct([['name', { type: 'string' }]], { optional: true })],
    ]);
    const out = apply(
      `${K}Flatten$Value`,
      { delimiter: '_' },
      record({ value: { id: 1, customer: null }, valueSchema: schema }),
    );
    expect(out?.value).toEqual({ id: 1 });
    expect(out?.valueSchema?.fields).toEqual([
      { field: 'id', type: 'int32' },
      { field: 'customer_name', type: 'string', optional: true },
    ]);
  });
});

describe('routers', () => {
  it('RegexRouter renames a topic it matches whole, with groups', () => {
    const keys = { regex: '(.*)\\.public\\.(.*)', replacement: 'cdc_$2' };
    expect(apply(`${K}RegexRouter`, keys, record({ topic: 'shop.public.orders' }))?.topic).toBe('cdc_orders');
    expect(apply(`${K}RegexRouter`, keys, record({ topic: 'orders' }))?.topic).toBe('orders');
    expect(apply(`${K}RegexRouter`, { regex: '(?<t>.*)', replacement: 'x-${t}' }, record())?.topic).toBe(
      'x-orders',
    );
  });

  it('RegexRouter refuses an invalid pattern', () => {
    const problems = configProblems({
      transforms: 't',
      'transforms.t.type': `${K}RegexRouter`,
      'transforms.t.regex': '(',
      'transforms.t.replacement': 'x',
    });
    expect(problems['transforms.t.regex']?.[0]).toContain(
      'Invalid value ( for configuration regex: Invalid regex',
    );
  });

  it('TimestampRouter appends the day of the record by default', () => {
    const out = apply(`${K}TimestampRouter`, {}, record({ timestamp: Date.UTC(2024, 0, 31, 23) }));
    expect(out?.topic).toBe('orders-20240131');
    expect(
      apply(
        `${K}TimestampRouter`,
        { 'topic.format': '${timestamp}_${topic}', 'timestamp.format': 'yyyy-MM' },
        record({ timestamp: 0 }),
      )?.topic,
    ).toBe('1970-01_orders');
    expect(failure(`${K}TimestampRouter`, {}, record({ timestamp: null }))).toContain(
      'Timestamp missing on record',
    );
  });
});

describe('headers', () => {
  it('InsertHeader adds a header with the literal parsed', () => {
    const out = apply(`${K}InsertHeader`, { header: 'source', 'value.literal': 'web' }, record());
    expect(out?.headers).toEqual([{ key: 'source', value: 'web', schema: { type: 'string' } }]);
    expect(apply(`${K}InsertHeader`, { header: 'n', 'value.literal': '42' }, record())?.headers[0]).toEqual({
      key: 'n',
      value: 42,
      schema: { type: 'int8' },
    });
  });

  it('DropHeaders removes every header of the names', () => {
    const headers = [
      { key: 'a', value: 1 },
      { key: 'b', value: 2 },
      { key: 'a', value: 3 },
    ];
    expect(apply(`${K}DropHeaders`, { headers: 'a' }, record({ headers }))?.headers).toEqual([
      { key: 'b', value: 2 },
    ]);
  });

  it('HeaderFrom copies or moves fields into headers', () => {
    const copied = apply(
      `${K}HeaderFrom$Value`,
      { fields: 'id', headers: 'order-id', operation: 'copy' },
      record({ value: order }),
    );
    expect(copied?.value).toEqual(order);
    expect(copied?.headers).toEqual([{ key: 'order-id', value: 7 }]);
    const moved = apply(
      `${K}HeaderFrom$Value`,
      { fields: 'id,name', headers: 'h1,h2', operation: 'move' },
      record({ value: order, valueSchema: orderSchema }),
    );
    expect(moved?.value).toEqual({ price: 1.5 });
    expect(moved?.valueSchema?.fields?.map((field) => field.field)).toEqual(['price']);
    expect(moved?.headers).toEqual([
      { key: 'h1', value: 7, schema: { type: 'int32' } },
      { key: 'h2', value: 'pen', schema: { type: 'string', optional: true } },
    ]);
  });

  it('HeaderFrom needs as many headers as fields', () => {
    const problems = configProblems({
      transforms: 't',
      'transforms.t.type': `${K}HeaderFrom$Value`,
      'transforms.t.fields': 'a,b',
      'transforms.t.headers': 'h',
      'transforms.t.operation': 'copy',
    });
    expect(problems['transforms.t.headers']).toEqual([
      "'fields' config must have the same number of elements as 'headers' config.",
    ]);
  });
});

describe('the chain', () => {
  it('applies transforms in the order of transforms', () => {
    const chain = transformChain({
      transforms: 'unwrap,route',
      'transforms.unwrap.type': `${K}ExtractField$Value`,
      'transforms.unwrap.field': 'after',
      'transforms.route.type': `${K}RegexRouter`,
      'transforms.route.regex': 'shop\\.(.*)',
      'transforms.route.replacement': '$1',
    });
    const out = chain(record({ topic: 'shop.orders', value: { after: { id: 1 } }, offset: 5 }));
    expect(out).toEqual(record({ topic: 'orders', value: { id: 1 }, offset: 5 }));
  });

  it('drops tombstones with Filter under RecordIsTombstone, and keeps the rest', () => {
    const chain = transformChain({
      transforms: 'dropTombstones',
      'transforms.dropTombstones.type': `${K}Filter`,
      'transforms.dropTombstones.predicate': 'isTombstone',
      predicates: 'isTombstone',
      'predicates.isTombstone.type': `${P}RecordIsTombstone`,
    });
    expect(chain(record({ value: null }))).toBeNull();
    expect(chain(record({ value: { a: 1 } }))).not.toBeNull();
  });

  it('applies a transform only where TopicNameMatches holds, or, negated, where it does not', () => {
    const config = (negate: string) => ({
      transforms: 'tag',
      'transforms.tag.type': `${K}InsertHeader`,
      'transforms.tag.header': 'audited',
      'transforms.tag.value.literal': 'yes',
      'transforms.tag.predicate': 'isAudit',
      'transforms.tag.negate': negate,
      predicates: 'isAudit',
      'predicates.isAudit.type': `${P}TopicNameMatches`,
      'predicates.isAudit.pattern': 'audit-.*',
    });
    expect(transformChain(config('false'))(record({ topic: 'audit-1' }))?.headers).toHaveLength(1);
    expect(transformChain(config('false'))(record({ topic: 'orders' }))?.headers).toHaveLength(0);
    expect(transformChain(config('true'))(record({ topic: 'orders' }))?.headers).toHaveLength(1);
  });

  it('applies a transform where HasHeaderKey holds', () => {
    const chain = transformChain({
      transforms: 'drop',
      'transforms.drop.type': `${K}Filter`,
      'transforms.drop.predicate': 'skip',
      predicates: 'skip',
      'predicates.skip.type': `${P}HasHeaderKey`,
      'predicates.skip.name': 'skip-me',
    });
    expect(chain(record({ headers: [{ key: 'skip-me', value: null }] }))).toBeNull();
    expect(chain(record())).not.toBeNull();
  });

  it('is the identity without transforms', () => {
    const input = record({ value: { a: 1 } });
    expect(transformChain({})(input)).toBe(input);
  });

  it.each<[string, Record<string, string>, string, string]>([
    [
      'an unknown transform class',
      { transforms: 'x', 'transforms.x.type': 'com.example.Nope' },
      'transforms.x.type',
      'Invalid value com.example.Nope for configuration transforms.x.type: Class com.example.Nope could not be found.',
    ],
    [
      'a transform without $Key or $Value',
      { transforms: 'x', 'transforms.x.type': `${K}InsertField`, 'transforms.x.topic.field': 't' },
      'transforms.x.type',
      `Invalid value ${K}InsertField for configuration transforms.x.type: Class ${K}InsertField could not be found.`,
    ],
    [
      'an alias without a type',
      { transforms: 'x' },
      'transforms.x.type',
      'Missing required configuration "transforms.x.type" which has no default value.',
    ],
    [
      'an unknown predicate class',
      { predicates: 'p', 'predicates.p.type': 'com.example.Pred' },
      'predicates.p.type',
      'Invalid value com.example.Pred for configuration predicates.p.type: Class com.example.Pred could not be found.',
    ],
    [
      'a predicate that is not declared',
      { transforms: 'x', 'transforms.x.type': `${K}Filter`, 'transforms.x.predicate': 'p' },
      'transforms.x.predicate',
      'Invalid value p for configuration transforms.x.predicate: no predicate p is listed in predicates',
    ],
    [
      'negate without a predicate',
      { transforms: 'x', 'transforms.x.type': `${K}Filter`, 'transforms.x.negate': 'true' },
      'transforms.x.type',
      "Config 'transforms.x.negate' was provided but there is no config 'transforms.x.predicate' defining a predicate to be negated.",
    ],
    [
      'a duplicate alias',
      { transforms: 'x,x', 'transforms.x.type': `${K}Filter` },
      'transforms',
      'Invalid value x,x for configuration transforms: Duplicate alias provided.',
    ],
  ])('refuses %s, naming it', (_case, config, key, message) => {
    expect(configProblems(config)[key]).toEqual([message]);
    expect(() => transformChain(config)).toThrow(TransformChainConfigError);
    expect(() => transformChain(config)).toThrow(message);
  });

  it('lists the keys of each alias for config/validate, grouped by alias', () => {
    const { definitions } = transformationConfigInfo({
      transforms: 'route',
      'transforms.route.type': `${K}RegexRouter`,
    });
    expect(definitions.map((definition) => [definition.name, definition.group])).toEqual([
      ['transforms', 'Transforms'],
      ['predicates', 'Predicates'],
      ['transforms.route.type', 'Transforms: route'],
      ['transforms.route.predicate', 'Transforms: route'],
      ['transforms.route.negate', 'Transforms: route'],
      ['transforms.route.regex', 'Transforms: route'],
      ['transforms.route.replacement', 'Transforms: route'],
    ]);
  });
});

describe('Debezium\u2019s ExtractNewRecordState', () => {
  const UNWRAP = 'io.debezium.transforms.ExtractNewRecordState';
  const source = { db: 'shop', schema: 'public', table: 'orders', lsn: '0/1', ts_ms: 5 };
  const change = (op: string, before: unknown, after: unknown) =>
    record({ key: { id: 1 }, value: { before, after, op, source, ts_ms: 9 } });

  it('makes the value the row after the change', () => {
    expect(apply(UNWRAP, {}, change('c', null, { id: 1, name: 'tea' }))?.value).toEqual({
      id: 1,
      name: 'tea',
    });
    expect(apply(UNWRAP, {}, change('r', null, { id: 1 }))?.value).toEqual({ id: 1 });
  });

  it.each<[string, unknown]>([
    ['tombstone', null],
    ['delete-to-tombstone', null],
    ['rewrite', { id: 1, name: 'tea', __deleted: 'true' }],
  ])('turns a delete, with %s, into %j keyed as it was', (mode, value) => {
    const out = apply(
      UNWRAP,
      { 'delete.tombstone.handling.mode': mode },
      change('d', { id: 1, name: 'tea' }, null),
    );
    expect(out?.key).toEqual({ id: 1 });
    expect(out?.value).toEqual(value);
  });

  it('drops deletes and tombstones with drop, and keeps tombstones by default', () => {
    expect(
      apply(UNWRAP, { 'delete.tombstone.handling.mode': 'drop' }, change('d', { id: 1 }, null)),
    ).toBeNull();
    expect(apply(UNWRAP, { 'delete.tombstone.handling.mode': 'drop' }, record({ value: null }))).toBeNull();
    expect(apply(UNWRAP, {}, record({ value: null }))?.value).toBeNull();
  });

  it('adds envelope and source fields and headers with the prefix', () => {
    const out = apply(
      UNWRAP,
      { 'add.fields': 'op,table,source.ts_ms', 'add.headers': 'db' },
      change('u', null, { id: 1 }),
    );
    expect(out?.value).toEqual({ id: 1, __op: 'u', __table: 'orders', __source_ts_ms: 5 });
    expect(out?.headers).toEqual([{ key: '__db', value: 'shop' }]);
  });

  it('takes the after field\u2019s schema with a schema, and leaves what is no change event alone', () => {
    const row = struct([['id', { type: 'int32' }]], { optional: true, name: 'shop.public.orders.Value' });
    const envelope = struct([
      ['before', row],
      ['after', row],
      ['op', { type: 'string' }],
    ]);
    const out = apply(
      UNWRAP,
      {},
      record({ value: { before: null, after: { id: 1 }, op: 'c' }, valueSchema: envelope }),
    );
    expect(out?.valueSchema).toEqual(
      struct([['id', { type: 'int32' }]], { name: 'shop.public.orders.Value' }),
    );
    expect(apply(UNWRAP, {}, record({ value: { id: 1 } }))?.value).toEqual({ id: 1 });
  });
});
