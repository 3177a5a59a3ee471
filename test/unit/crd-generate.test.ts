import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { checkGeneratedCrds, generateCrd, writeGeneratedCrds } from '../../crds/generate.js';
import { KINDS } from '../../crds/index.js';
import { packageRoot } from '../../crds/registry.js';
import { INTEGRATION, INTEGRATION_TYPES } from '../../crds/integration.js';
import { mixedKind, treeKind } from '../fixtures/crd-unsupported.js';
import { widgetKind } from '../fixtures/crd-widget.js';

const repoRoot = packageRoot(import.meta.url);

type Schema = Record<string, unknown>;

/** Walks a schema depth-first, handing every node and its path to `visit`. */
function eachNode(schema: Schema, visit: (node: Schema, at: string) => void, at = '$'): void {
  visit(schema, at);
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  for (const [name, child] of Object.entries(properties)) eachNode(child, visit, `${at}.${name}`);
  if (schema.items) eachNode(schema.items as Schema, visit, `${at}[]`);
  if (typeof schema.additionalProperties === 'object') {
    eachNode(schema.additionalProperties as Schema, visit, `${at}{}`);
  }
}

function at(schema: Schema, dotted: string): Schema {
  return dotted.split('.').reduce<Schema>((node, step) => {
    if (step === '[]') return node.items as Schema;
    return (node.properties as Record<string, Schema>)[step]!;
  }, schema);
}

describe('generateCrd', () => {
  let crd: Schema;
  let version: Schema;
  let schema: Schema;

  beforeAll(() => {
    crd = generateCrd(widgetKind, repoRoot);
    version = (crd.spec as { versions: Schema[] }).versions[0]!;
    schema = (version.schema as { openAPIV3Schema: Schema }).openAPIV3Schema;
  });

  it('names the CRD <plural>.<group> and declares every name the descriptor gives', () => {
    expect(crd.apiVersion).toBe('apiextensions.k8s.io/v1');
    expect(crd.kind).toBe('CustomResourceDefinition');
    expect(crd.metadata).toEqual({ name: 'widgets.cloudplane.dev' });
    expect(crd.spec).toMatchObject({
      group: 'cloudplane.dev',
      scope: 'Namespaced',
      names: {
        kind: 'Widget',
        listKind: 'WidgetList',
        plural: 'widgets',
        singular: 'widget',
        shortNames: ['wdg'],
        categories: ['cloudplane'],
      },
    });
  });

  it('serves and stores the one version, with the status subresource', () => {
    expect((crd.spec as { versions: Schema[] }).versions).toHaveLength(1);
    expect(version).toMatchObject({
      name: 'v1alpha1',
      served: true,
      storage: true,
      subresources: { status: {} },
    });
  });

  it('shows the descriptor columns and ends with Age', () => {
    expect(version.additionalPrinterColumns).toEqual([
      { name: 'Finish', type: 'string', jsonPath: '.spec.finish' },
      { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas', priority: 1 },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ]);
  });

  it('describes the whole object and requires spec', () => {
    expect(schema.type).toBe('object');
    expect(Object.keys(schema.properties as Schema)).toEqual([
      'apiVersion',
      'kind',
      'metadata',
      'spec',
      'status',
    ]);
    expect(at(schema, 'metadata')).toEqual({ type: 'object' });
    expect(schema.required).toEqual(['spec']);
  });

  it('leaves no reference, union, draft-07 keyword or closed object anywhere', () => {
    const text = JSON.stringify(schema);
    for (const keyword of ['$ref', '$schema', '$id', 'definitions', 'anyOf', 'oneOf', 'allOf', 'const']) {
      expect(text).not.toContain(`"${keyword}"`);
    }
    expect(text).not.toContain('"additionalProperties":false');
  });

  it('gives every node a single type unless it preserves unknown fields', () => {
    eachNode(schema, (node, where) => {
      if (node['x-kubernetes-preserve-unknown-fields'] === true) return;
      expect(typeof node.type, where).toBe('string');
    });
  });

  it.each([
    [
      'spec.finish',
      { type: 'string', enum: ['matte', 'gloss', 'satin'], description: 'The surface finish.' },
    ],
    ['spec.replicas', { type: 'integer', minimum: 0, maximum: 10 }],
    ['spec.tags', { type: 'object', additionalProperties: { type: 'string' } }],
    ['spec.parts', { type: 'array', description: 'The parts, in assembly order.' }],
    ['spec.parts.[]', { type: 'object', required: ['name', 'count'] }],
    ['spec.parts.[].name', { type: 'string', pattern: '^[a-z][a-z0-9-]*$', maxLength: 63 }],
    ['spec.parts.[].count', { type: 'integer', minimum: 1 }],
    ['spec.parts.[].supplier', { type: 'string', nullable: true }],
    ['spec.settings', { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }],
    ['spec.owner', { type: 'object', nullable: true, required: ['team'] }],
    ['spec.owner.email', { type: 'string', format: 'email' }],
    ['spec.homepage', { type: 'string', format: 'uri' }],
    ['status.phase', { type: 'string', enum: ['pending', 'ready', 'failed'] }],
    [
      'status.conditions.[]',
      { type: 'object', required: ['type', 'status', 'reason', 'message', 'lastTransitionTime'] },
    ],
    ['status.conditions.[].status', { type: 'string', enum: ['True', 'False', 'Unknown'] }],
    ['status.observedGeneration', { type: 'integer' }],
  ])('renders %s structurally', (field, expected) => {
    expect(at(schema, field)).toMatchObject(expected);
  });

  it('keeps the TSDoc of the Spec and Status types as their descriptions', () => {
    expect(at(schema, 'spec').description).toBe('What a widget should be.');
    expect(at(schema, 'status').description).toBe('What a widget is.');
  });

  it('keeps maps open only for their declared value type', () => {
    expect(at(schema, 'spec.tags')['x-kubernetes-preserve-unknown-fields']).toBeUndefined();
    expect(at(schema, 'spec.settings').additionalProperties).toBeUndefined();
  });

  it.each([
    {
      what: 'a recursive type',
      kind: treeKind,
      message: 'Tree.spec.children[].children[]: the type contains itself',
    },
    {
      what: 'a union of string and boolean',
      kind: mixedKind,
      message: 'Mixed.spec.value: a value of several types (string, boolean) cannot be structural',
    },
  ])('refuses $what, naming the field', ({ kind, message }) => {
    expect(() => generateCrd(kind, repoRoot)).toThrow(message);
  });

  it('writes the Integration enum of types from the kinds alone, the providers not loaded', () => {
    const integration = generateCrd(INTEGRATION, repoRoot);
    const [served] = (integration.spec as { versions: Schema[] }).versions;
    const object = (served!.schema as { openAPIV3Schema: Schema }).openAPIV3Schema;
    const spec = (object.properties as Record<string, Schema>).spec!;
    expect((spec.properties as Record<string, Schema>).type!.enum).toEqual(INTEGRATION_TYPES);
  });

  it('refuses a descriptor that declares its own Age column', () => {
    const kind = {
      ...widgetKind,
      printerColumns: [{ name: 'Age', type: 'date' as const, jsonPath: '.metadata.creationTimestamp' }],
    };
    expect(() => generateCrd(kind, repoRoot)).toThrow('Widget: printerColumns must not declare Age');
  });

  it.each([
    { typesFile: 'crds/nothing-here.ts', message: 'typesFile crds/nothing-here.ts does not exist' },
    { typesFile: '../outside.ts', message: 'typesFile "../outside.ts" must be a plain relative path' },
    { typesFile: '/etc/hosts', message: 'typesFile "/etc/hosts" must be a plain relative path' },
    { typesFile: 'crds/*.ts', message: 'typesFile "crds/*.ts" must be a plain relative path' },
  ])('refuses the types file $typesFile', ({ typesFile, message }) => {
    expect(() => generateCrd({ ...widgetKind, typesFile }, repoRoot)).toThrow(message);
  });

  it('names the type a types file does not export', () => {
    expect(() => generateCrd({ ...widgetKind, kind: 'Gizmo' }, repoRoot)).toThrow(
      'Gizmo: cannot read GizmoSpec from test/fixtures/crd-widget.ts: No root type "GizmoSpec" found',
    );
  });
});

/** A scratch repository holding just what the widget fixture's types need. */
function scratchRepo(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-crds-'));
  for (const file of [
    'tsconfig.json',
    'control-plane/kind-descriptor.ts',
    'control-plane/types.ts',
    'test/fixtures/crd-widget.ts',
  ]) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.copyFileSync(path.join(repoRoot, file), path.join(dir, file));
  }
  fs.symlinkSync(path.join(repoRoot, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

describe('checkGeneratedCrds and writeGeneratedCrds', () => {
  const widgetFiles = [
    'charts/cloudplane/crds/widgets.cloudplane.dev.yaml',
    'crds/widgets.cloudplane.dev.yaml',
  ];
  let dir: string;

  beforeAll(() => {
    dir = scratchRepo();
  });
  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });
  afterEach(() => {
    for (const folder of ['crds', 'charts']) {
      fs.rmSync(path.join(dir, folder), { recursive: true, force: true });
    }
    fs.mkdirSync(path.join(dir, 'crds'));
    fs.copyFileSync(path.join(repoRoot, 'control-plane/kind-descriptor.ts'), path.join(dir, 'crds/kind.ts'));
  });

  it('reports both copies as stale when nothing was generated', () => {
    expect(checkGeneratedCrds(dir, [widgetKind]).stale).toEqual(widgetFiles);
  });

  it('reports nothing once generated, and writes the same YAML to both folders', () => {
    expect(writeGeneratedCrds(dir, [widgetKind])).toEqual({ written: widgetFiles, removed: [] });
    expect(checkGeneratedCrds(dir, [widgetKind]).stale).toEqual([]);
    const [chartCopy, repoCopy] = widgetFiles.map((file) => fs.readFileSync(path.join(dir, file), 'utf8'));
    expect(chartCopy).toBe(repoCopy);
    expect(repoCopy).toMatch(
      /^# Generated by npm run gen:crds from test\/fixtures\/crd-widget\.ts; do not edit\.\napiVersion: apiextensions/,
    );
    expect(parse(repoCopy!)).toEqual(generateCrd(widgetKind, dir));
  });

  it('writes byte-identical output on a second run', () => {
    writeGeneratedCrds(dir, [widgetKind]);
    const first = fs.readFileSync(path.join(dir, widgetFiles[1]!), 'utf8');
    expect(writeGeneratedCrds(dir, [widgetKind])).toEqual({ written: [], removed: [] });
    expect(fs.readFileSync(path.join(dir, widgetFiles[1]!), 'utf8')).toBe(first);
  });

  it('reports a hand-edited file as stale', () => {
    writeGeneratedCrds(dir, [widgetKind]);
    fs.appendFileSync(path.join(dir, widgetFiles[0]!), '# tweaked\n');
    expect(checkGeneratedCrds(dir, [widgetKind]).stale).toEqual([widgetFiles[0]]);
  });

  it('reports and removes files generated for a kind that is gone, leaving other YAML alone', () => {
    writeGeneratedCrds(dir, [widgetKind]);
    fs.writeFileSync(path.join(dir, 'crds/extra.yaml'), 'kind: ConfigMap\n');
    expect(checkGeneratedCrds(dir, []).stale).toEqual(widgetFiles);
    expect(writeGeneratedCrds(dir, [])).toEqual({ written: [], removed: widgetFiles });
    expect(checkGeneratedCrds(dir, []).stale).toEqual([]);
    expect(fs.existsSync(path.join(dir, 'crds/extra.yaml'))).toBe(true);
  });

  it('keeps the chart CRD folder with zero kinds', () => {
    expect(writeGeneratedCrds(dir, [])).toEqual({ written: [], removed: [] });
    expect(fs.readdirSync(path.join(dir, 'charts/cloudplane/crds'))).toEqual(['.gitkeep']);
  });

  it('finds the repository in step with crds/index.ts', () => {
    expect(checkGeneratedCrds(repoRoot, KINDS).stale).toEqual([]);
  });
});
