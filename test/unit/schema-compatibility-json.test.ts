import { describe, expect, it } from 'vitest';
import {
  compatibilityProblems,
  type CompatibilityLevel,
  type SchemaContent,
} from '../../schema-registry/index.js';

const json = (schema: unknown): SchemaContent => ({
  schemaType: 'JSON',
  schema: JSON.stringify(schema),
  references: [],
  resolvedReferences: [],
});
const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  json({ type: 'object', properties, ...extra });
const ID = { id: { type: 'integer' } };
const NAME = { name: { type: 'string' } };

describe('JSON Schema compatibility', () => {
  it.each<[string, CompatibilityLevel, SchemaContent, SchemaContent, string | undefined]>([
    ['adding an optional property', 'BACKWARD', object(ID), object({ ...ID, ...NAME }), undefined],
    [
      'adding a required property',
      'BACKWARD',
      object(ID),
      object({ ...ID, ...NAME }, { required: ['name'] }),
      "property 'name' became required",
    ],
    ['dropping a requirement', 'BACKWARD', object(ID, { required: ['id'] }), object(ID), undefined],
    [
      'dropping a requirement',
      'FORWARD',
      object(ID, { required: ['id'] }),
      object(ID),
      "property 'id' became required",
    ],
    [
      'changing a property type',
      'BACKWARD',
      object(ID),
      object({ id: { type: 'string' } }),
      "'#/properties/id': type changed from integer to string",
    ],
    ['widening integer to number', 'BACKWARD', object(ID), object({ id: { type: 'number' } }), undefined],
    [
      'widening integer to number',
      'FORWARD',
      object(ID),
      object({ id: { type: 'number' } }),
      'type changed from number to integer',
    ],
    [
      'removing a property under a closed content model',
      'FORWARD',
      object({ ...ID, ...NAME }, { additionalProperties: false }),
      object(ID, { additionalProperties: false }),
      undefined,
    ],
    [
      'removing a property under a closed content model',
      'BACKWARD',
      object({ ...ID, ...NAME }, { additionalProperties: false }),
      object(ID, { additionalProperties: false }),
      "property 'name' removed under a closed content model",
    ],
    [
      'removing a property under an open content model',
      'BACKWARD',
      object({ ...ID, ...NAME }),
      object(ID),
      undefined,
    ],
    [
      'closing the content model',
      'BACKWARD',
      object(ID),
      object(ID, { additionalProperties: false }),
      'content model was closed',
    ],
    [
      'narrowing an enum',
      'BACKWARD',
      object({ colour: { enum: ['red', 'blue'] } }),
      object({ colour: { enum: ['red'] } }),
      'enum narrowed, values ["blue"] removed',
    ],
    [
      'widening an enum',
      'BACKWARD',
      object({ colour: { enum: ['red'] } }),
      object({ colour: { enum: ['red', 'blue'] } }),
      undefined,
    ],
    [
      'widening an enum',
      'FULL',
      object({ colour: { enum: ['red'] } }),
      object({ colour: { enum: ['red', 'blue'] } }),
      'enum narrowed',
    ],
    [
      'raising a minimum',
      'BACKWARD',
      object({ n: { type: 'integer', minimum: 0 } }),
      object({ n: { type: 'integer', minimum: 1 } }),
      'minimum tightened from 0 to 1',
    ],
    [
      'lowering a maxLength',
      'BACKWARD',
      object({ s: { type: 'string', maxLength: 10 } }),
      object({ s: { type: 'string', maxLength: 5 } }),
      'maxLength tightened from 10 to 5',
    ],
    [
      'adding a pattern',
      'BACKWARD',
      object({ s: { type: 'string' } }),
      object({ s: { type: 'string', pattern: '^a' } }),
      'pattern changed',
    ],
    [
      'loosening a bound',
      'BACKWARD',
      object({ n: { type: 'integer', maximum: 5 } }),
      object({ n: { type: 'integer', maximum: 9 } }),
      undefined,
    ],
    [
      'changing array items',
      'BACKWARD',
      json({ type: 'array', items: { type: 'string' } }),
      json({ type: 'array', items: { type: 'integer' } }),
      "'#/items': type changed",
    ],
    ['any change', 'NONE', object(ID), object({ id: { type: 'string' } }), undefined],
  ])('%s under %s', (_case, level, earlier, candidate, reason) => {
    const problems = compatibilityProblems(level, candidate, [{ version: 1, content: earlier }]);
    if (reason === undefined) expect(problems).toEqual([]);
    else expect(problems.join('\n')).toContain(reason);
  });

  it.each<[CompatibilityLevel, number]>([
    ['FORWARD', 0],
    ['FORWARD_TRANSITIVE', 1],
  ])('checks every earlier version only under a transitive level (%s: %i problems)', (level, count) => {
    // v1 required `id`; v2 dropped the requirement; v3 keeps v2's shape: v1 reads v3's data only if id stays.
    const earlier = [
      { version: 1, content: object(ID, { required: ['id'] }) },
      { version: 2, content: object(ID) },
    ];
    expect(compatibilityProblems(level, object(ID), earlier)).toHaveLength(count);
  });
});
