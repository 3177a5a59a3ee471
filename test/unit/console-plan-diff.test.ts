/** The console's plan diff and template problems: symbols, field changes, summaries, paths. */
import { describe, expect, it } from 'vitest';
import {
  parseTemplate,
  planDiff,
  planSummary,
  shownValue,
  templateProblems,
} from '../../console/src/plan-diff.js';

describe('planDiff', () => {
  it.each([
    ['create', '+'],
    ['update', '~'],
    ['delete', '-'],
    ['replace', '-/+'],
  ] as const)('marks a %s with %s', (type, symbol) => {
    expect(planDiff([{ type, resource: 'resources.db', details: {} }])).toEqual([
      { symbol, type, resource: 'resources.db', fields: [] },
    ]);
  });

  it('lists each changed field with its old and new value, in the plan order', () => {
    const lines = planDiff([
      {
        type: 'replace',
        resource: 'resources.db',
        details: { 'properties.storage_size': { old: '2Gi', new: '1Gi' }, reason: 'storage only grows' },
      },
      {
        type: 'update',
        resource: 'services.api',
        details: { 'properties.values.replicas': { old: 1, new: 3 } },
      },
      { type: 'create', resource: 'outputs.db_url', details: { value: { new: '(sensitive)' } } },
    ]);
    expect(lines).toEqual([
      {
        symbol: '-/+',
        type: 'replace',
        resource: 'resources.db',
        fields: [{ path: 'properties.storage_size', old: '2Gi', new: '1Gi' }],
      },
      {
        symbol: '~',
        type: 'update',
        resource: 'services.api',
        fields: [{ path: 'properties.values.replicas', old: '1', new: '3' }],
      },
      {
        symbol: '+',
        type: 'create',
        resource: 'outputs.db_url',
        fields: [{ path: 'value', old: '(none)', new: '(sensitive)' }],
      },
    ]);
  });

  it('passes over a change without a type or resource', () => {
    expect(planDiff([{ resource: 'resources.db' }, { type: 'create' }])).toEqual([]);
  });
});

describe('shownValue', () => {
  it.each([
    [undefined, '(none)'],
    ['(known after apply)', '(known after apply)'],
    [3, '3'],
    [{ a: [1] }, '{"a":[1]}'],
    [null, 'null'],
  ])('shows %j as %s', (value, shown) => {
    expect(shownValue(value)).toBe(shown);
  });
});

describe('planSummary', () => {
  it('counts every kind of change, zero when absent', () => {
    expect(planSummary({ create: 2, delete: 1, unchanged: 4 })).toBe(
      '2 to create, 0 to update, 0 to replace, 1 to delete, 4 unchanged',
    );
  });
});

describe('templateProblems', () => {
  it('lists the problems the API gives with their paths', () => {
    expect(
      templateProblems('template.services.a.depends_on[0]: a cycle (and 1 more)', {
        field: 'template.services.a.depends_on[0]',
        problems: [
          { path: 'template.services.a.depends_on[0]', message: 'a cycle' },
          { path: 'template.outputs.x.value', message: 'unknown reference' },
        ],
      }),
    ).toEqual([
      { path: 'template.services.a.depends_on[0]', message: 'a cycle' },
      { path: 'template.outputs.x.value', message: 'unknown reference' },
    ]);
  });

  it('falls back to the one field named, with the message, and to nothing', () => {
    expect(templateProblems('template.version: required', { field: 'template.version' })).toEqual([
      { path: 'template.version', message: 'template.version: required' },
    ]);
    expect(templateProblems('stack not found', {})).toEqual([]);
  });
});

describe('parseTemplate', () => {
  it('takes a JSON object and says where other text fails', () => {
    expect(parseTemplate('{"version": "1.0.0"}')).toEqual({ template: { version: '1.0.0' } });
    expect(parseTemplate('[1]')).toEqual({
      problem: { path: 'template', message: 'the template is a JSON object' },
    });
    const broken = parseTemplate('{"version": ');
    expect('problem' in broken && broken.problem.message).toMatch(/^not JSON: /);
  });
});
