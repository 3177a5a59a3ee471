import { describe, expect, it } from 'vitest';
import {
  compatibilityProblems,
  type CompatibilityLevel,
  type SchemaContent,
} from '../../schema-registry/index.js';

const avro = (schema: unknown): SchemaContent => ({
  schemaType: 'AVRO',
  schema: JSON.stringify(schema),
  references: [],
  resolvedReferences: [],
});
const user = (...fields: unknown[]) => avro({ type: 'record', name: 'User', fields });
const id = { name: 'id', type: 'int' };
const email = { name: 'email', type: 'string' };
const emailWithDefault = { name: 'email', type: 'string', default: '' };
const idAsLong = { name: 'id', type: 'long' };
const idAsString = { name: 'id', type: 'string' };

const V1 = user(id);
const history = (...versions: SchemaContent[]) =>
  versions.map((content, index) => ({ version: index + 1, content }));

describe('Avro compatibility', () => {
  it.each<[string, CompatibilityLevel, SchemaContent[], SchemaContent, string | undefined]>([
    ['adding a field with a default', 'BACKWARD', [V1], user(id, emailWithDefault), undefined],
    ['adding a field without a default', 'BACKWARD', [V1], user(id, email), "field 'User.email'"],
    ['adding a field without a default', 'FORWARD', [V1], user(id, email), undefined],
    ['removing a field without a default', 'FORWARD', [user(id, email)], V1, "field 'User.email'"],
    ['removing a field without a default', 'BACKWARD', [user(id, email)], V1, undefined],
    ['adding a field without a default', 'FULL', [V1], user(id, email), "field 'User.email'"],
    ['adding a field with a default', 'FULL', [V1], user(id, emailWithDefault), undefined],
    ['promoting int to long', 'BACKWARD', [V1], user(idAsLong), undefined],
    ['promoting int to long', 'FORWARD', [V1], user(idAsLong), "'User.id': cannot read"],
    ['changing int to string', 'BACKWARD', [V1], user(idAsString), "'User.id'"],
    ['changing int to string', 'NONE', [V1], user(idAsString), undefined],
    ['renaming the record', 'BACKWARD', [V1], avro({ type: 'record', name: 'Person', fields: [id] }), 'User'],
    [
      'removing an enum symbol',
      'BACKWARD',
      [avro({ type: 'enum', name: 'Colour', symbols: ['RED', 'BLUE'] })],
      avro({ type: 'enum', name: 'Colour', symbols: ['RED'] }),
      'symbols BLUE were removed',
    ],
  ])('%s under %s', (_case, level, earlier, candidate, reason) => {
    const problems = compatibilityProblems(level, candidate, history(...earlier));
    if (reason === undefined) expect(problems).toEqual([]);
    else expect(problems.join('\n')).toContain(reason);
  });

  it.each<[CompatibilityLevel, boolean]>([
    ['BACKWARD', true],
    ['BACKWARD_TRANSITIVE', false],
    ['FORWARD_TRANSITIVE', true],
    ['FULL_TRANSITIVE', false],
  ])('checks every earlier version under %s (compatible: %s)', (level, compatible) => {
    // v1 has no `email`; v2 added it with a default; v3 drops the default: v3 cannot read v1's data.
    const earlier = history(V1, user(id, emailWithDefault));
    const problems = compatibilityProblems(level, user(id, email), earlier);
    expect(problems.length === 0).toBe(compatible);
    if (!compatible && level.startsWith('BACKWARD')) expect(problems.join()).toContain('version 1');
  });

  it('resolves named types from references', () => {
    const address = JSON.stringify({
      type: 'record',
      name: 'Address',
      fields: [{ name: 'city', type: 'string' }],
    });
    const withAddress = (extra: unknown[]): SchemaContent => ({
      schemaType: 'AVRO',
      schema: JSON.stringify({
        type: 'record',
        name: 'Customer',
        fields: [{ name: 'home', type: 'Address' }, ...extra],
      }),
      references: [{ name: 'Address', subject: 'address', version: 1 }],
      resolvedReferences: [{ name: 'Address', schema: address }],
    });
    expect(compatibilityProblems('BACKWARD', withAddress([email]), history(withAddress([])))).toEqual([
      expect.stringContaining("field 'Customer.email'"),
    ]);
  });
});
