import { describe, expect, it } from 'vitest';
import { colorsFor } from '../../client/terminal.js';
import { outputFormat, renderFields, renderTable } from '../../client/output.js';
import { renderPlan } from '../../client/plan-diff.js';
import { parseDuration } from '../../client/waiting.js';
import { parsePairs } from '../../client/commands/vault.js';
import { parseRule } from '../../client/commands/vpc.js';

const plain = colorsFor(false, {});

describe('output formats', () => {
  it.each([
    { asked: undefined, tty: true, format: 'table' },
    { asked: undefined, tty: false, format: 'json' },
    { asked: 'yaml', tty: true, format: 'yaml' },
    { asked: 'table', tty: false, format: 'table' },
  ])('-o $asked with a terminal $tty is $format', ({ asked, tty, format }) => {
    expect(outputFormat(asked, tty)).toBe(format);
  });

  it('refuses a format it does not know as a usage error', () => {
    expect(() => outputFormat('xml', true)).toThrow(expect.objectContaining({ name: 'UsageError' }));
  });

  it('pads columns to their widest cell and shows nothing for null', () => {
    const rows = [
      { id: 'a', name: 'short', note: null },
      { id: 'bbbb', name: 'a longer name', note: ['x', 'y'] },
    ];
    expect(
      renderTable(rows, [
        { header: 'id', value: (row) => row.id },
        { header: 'name', value: (row) => row.name },
        { header: 'note', value: (row) => row.note },
      ]),
    ).toBe('ID     NAME            NOTE\na      short\nbbbb   a longer name   x,y\n');
  });

  it('aligns the fields of one object', () => {
    expect(
      renderFields([
        ['id', 'v1'],
        ['status', 'running'],
      ]),
    ).toBe('id:     v1\nstatus: running\n');
  });

  it.each([
    { env: {}, tty: true, colored: true },
    { env: { NO_COLOR: '1' }, tty: true, colored: false },
    { env: {}, tty: false, colored: false },
  ])('colour with NO_COLOR=$env.NO_COLOR on a terminal $tty: $colored', ({ env, tty, colored }) => {
    expect(colorsFor(tty, env).green('x') !== 'x').toBe(colored);
  });
});

describe('a plan as a diff', () => {
  it('marks each change and shows its fields old → new', () => {
    const text = renderPlan(
      {
        changes: [
          { type: 'create', resource: 'secrets.pw', details: { length: { old: null, new: 20 } } },
          {
            type: 'update',
            resource: 'services.api',
            details: { 'properties.values.replicaCount': { old: 2, new: 3 } },
          },
          {
            type: 'replace',
            resource: 'resources.db',
            details: { 'properties.engine': { old: 'mysql', new: 'postgresql' } },
          },
          { type: 'delete', resource: 'outputs.old', details: { value: { old: '(sensitive)', new: null } } },
        ],
        summary: { create: 1, update: 1, replace: 1, delete: 1, unchanged: 2 },
        plan_digest: 'sha256:ab',
      },
      plain,
    );
    expect(text).toBe(
      [
        '+ secrets.pw (create)',
        '    length: 20',
        '~ services.api (update)',
        '    properties.values.replicaCount: 2 → 3',
        '-/+ resources.db (replace)',
        '    properties.engine: "mysql" → "postgresql"',
        '- outputs.old (delete)',
        '    value: (sensitive)',
        '',
        'Plan: 1 to create, 1 to update, 1 to replace, 1 to delete, 2 unchanged.',
        'Digest: sha256:ab',
        '',
      ].join('\n'),
    );
  });

  it('says when nothing changes', () => {
    expect(renderPlan({ changes: [], summary: { unchanged: 3 } }, plain)).toMatch(/^No changes/);
  });
});

describe('values read from flags', () => {
  it.each([
    { text: '30s', ms: 30_000 },
    { text: '10m', ms: 600_000 },
    { text: '1h', ms: 3_600_000 },
    { text: '1m30s', ms: 90_000 },
    { text: '45', ms: 45_000 },
  ])('duration $text is $ms ms', ({ text, ms }) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', 'soon', '10 minutes', '5d'])('duration %j is a usage error', (text) => {
    expect(() => parseDuration(text)).toThrow(expect.objectContaining({ name: 'UsageError' }));
  });

  it('reads key=value pairs, a value keeping its own =', () => {
    expect(parsePairs(['user=app', 'password=a=b', 'empty='])).toEqual({
      user: 'app',
      password: 'a=b',
      empty: '',
    });
    expect(() => parsePairs(['=x'])).toThrow(/not key=value/);
  });

  it.each([
    { text: 'tcp:443:0.0.0.0/0', rule: { protocol: 'tcp', port_range: '443', source: '0.0.0.0/0' } },
    {
      text: 'tcp:8000-8080:10.0.0.0/8',
      rule: { protocol: 'tcp', port_range: '8000-8080', source: '10.0.0.0/8' },
    },
    { text: 'icmp::sg-0a1b', rule: { protocol: 'icmp', source: 'sg-0a1b' } },
  ])('security group rule $text', ({ text, rule }) => {
    expect(parseRule(text)).toEqual(rule);
  });
});
