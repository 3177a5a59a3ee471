import { describe, expect, it } from 'vitest';
import {
  compatibilityProblems,
  type CompatibilityLevel,
  type SchemaContent,
} from '../../schema-registry/index.js';

const proto = (body: string, header = 'syntax = "proto3";\npackage shop;'): SchemaContent => ({
  schemaType: 'PROTOBUF',
  schema: `${header}\n${body}`,
  references: [],
  resolvedReferences: [],
});
const ORDER = proto('message Order { int64 id = 1; string note = 2; }');

describe('Protobuf compatibility', () => {
  it.each<[string, CompatibilityLevel, SchemaContent, SchemaContent, string | undefined]>([
    [
      'adding a field',
      'BACKWARD',
      ORDER,
      proto('message Order { int64 id = 1; string note = 2; bool gift = 3; }'),
      undefined,
    ],
    ['removing a field', 'FULL', ORDER, proto('message Order { int64 id = 1; }'), undefined],
    [
      'renaming a field',
      'FULL',
      ORDER,
      proto('message Order { int64 id = 1; string comment = 2; }'),
      undefined,
    ],
    [
      'int64 to uint64 (same wire type)',
      'BACKWARD',
      ORDER,
      proto('message Order { uint64 id = 1; string note = 2; }'),
      undefined,
    ],
    [
      'string to bytes (same wire type)',
      'BACKWARD',
      ORDER,
      proto('message Order { int64 id = 1; bytes note = 2; }'),
      undefined,
    ],
    [
      'reusing a field number with another type',
      'BACKWARD',
      ORDER,
      proto('message Order { int64 id = 1; double note = 2; }'),
      "field 'shop.Order.note' (number 2): number reused with another type, string became double",
    ],
    [
      'making a field repeated',
      'BACKWARD',
      ORDER,
      proto('message Order { int64 id = 1; repeated string note = 2; }'),
      'string became repeated string',
    ],
    [
      'renaming a message',
      'BACKWARD',
      ORDER,
      proto('message Purchase { int64 id = 1; string note = 2; }'),
      "message 'shop.Order' was removed or renamed",
    ],
    [
      'adding a message',
      'BACKWARD',
      ORDER,
      proto('message Order { int64 id = 1; string note = 2; }\nmessage Item { string sku = 1; }'),
      undefined,
    ],
    [
      'adding a message',
      'FORWARD',
      ORDER,
      proto('message Order { int64 id = 1; string note = 2; }\nmessage Item { string sku = 1; }'),
      "message 'shop.Item' was removed",
    ],
    [
      'changing the package',
      'BACKWARD',
      ORDER,
      proto('message Order { int64 id = 1; string note = 2; }', 'syntax = "proto3";\npackage store;'),
      "package changed from 'shop' to 'store'",
    ],
    [
      'removing a required field',
      'BACKWARD',
      proto(
        'message Order { required int64 id = 1; optional string note = 2; }',
        'syntax = "proto2";\npackage shop;',
      ),
      proto('message Order { optional string note = 2; }', 'syntax = "proto2";\npackage shop;'),
      'a required field was removed',
    ],
    [
      'adding a required field',
      'BACKWARD',
      proto('message Order { optional string note = 2; }', 'syntax = "proto2";\npackage shop;'),
      proto(
        'message Order { required int64 id = 1; optional string note = 2; }',
        'syntax = "proto2";\npackage shop;',
      ),
      'a required field was added',
    ],
    [
      'moving fields into a new oneof',
      'BACKWARD',
      ORDER,
      proto('message Order { oneof key { int64 id = 1; string note = 2; } }'),
      'were moved into a new oneof',
    ],
    [
      'removing an enum constant',
      'BACKWARD',
      proto('enum State { NEW = 0; PAID = 1; }'),
      proto('enum State { NEW = 0; }'),
      "enum 'shop.State': constant PAID (1) was removed",
    ],
    [
      'changing a nested message field type',
      'BACKWARD',
      proto('message Order { Line line = 1; message Line { int32 qty = 1; } }'),
      proto('message Order { Line line = 1; message Line { string qty = 1; } }'),
      "field 'shop.Order.Line.qty'",
    ],
    ['any change', 'NONE', ORDER, proto('message Purchase { double id = 1; }'), undefined],
  ])('%s under %s', (_case, level, earlier, candidate, reason) => {
    const problems = compatibilityProblems(level, candidate, [{ version: 1, content: earlier }]);
    if (reason === undefined) expect(problems).toEqual([]);
    else expect(problems.join('\n')).toContain(reason);
  });

  it.each<[CompatibilityLevel, number]>([
    ['BACKWARD', 0],
    ['BACKWARD_TRANSITIVE', 1],
  ])('under %s compares against %i more than the latest version', (level, count) => {
    const earlier = [
      { version: 1, content: ORDER },
      { version: 2, content: proto('message Order { int64 id = 1; }') },
    ];
    const reused = proto('message Order { int64 id = 1; double note = 2; }');
    expect(compatibilityProblems(level, reused, earlier)).toHaveLength(count);
  });

  it('refuses a file protobufjs cannot parse as an invalid schema (42201)', () => {
    expect(() => compatibilityProblems('BACKWARD', proto('message Order { int64 = 1; }'), [])).toThrow(
      expect.objectContaining({ errorCode: 42201 }),
    );
  });
});
