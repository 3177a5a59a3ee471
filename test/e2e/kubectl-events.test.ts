import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VpcConfig } from '../../config/vpc.js';
import { ControllerRunner } from '../../controllers/runtime/controller-runner.js';
import { vpcControllers } from '../../controllers/vpc/index.js';
import { loadKinds } from '../../crds/registry.js';
import { VPC_KINDS } from '../../crds/vpc.js';
import { createLogger } from '../../observability/logger.js';
import { createMetrics } from '../../observability/metrics.js';
import { openTestSqliteDatabase, type TestSqliteDatabase } from '../fixtures/db-sqlite.js';
import { eventually } from '../fixtures/eventually.js';
import { Kubectl, KUBECTL } from '../fixtures/kube-kubectl.js';
import { startKubeServer, type KubeServer } from '../fixtures/kube-server.js';

const available = fs.existsSync(KUBECTL);
if (!available) console.warn(`SKIPPING the kubectl events suite: ${KUBECTL} is missing; run npm run tools`);

const CONFIG: VpcConfig = {
  regions: ['us-east-1'],
  limitPerOrganization: 5,
  natPublicIpPool: '203.0.113.0/24',
};

const FIRST = '3a0d2f4e-5b6c-4d7e-8f90-a1b2c3d4e5f6';
const OVERLAPPING = '4b1e3a5f-6c7d-4e8f-9a01-b2c3d4e5f607';
const THIRD = '5c2f4b6a-7d8e-4f90-8b12-c3d4e5f60718';

function vpcManifest(name: string, displayName: string, cidrBlock = '10.60.0.0/16'): string {
  return [
    'apiVersion: cloudplane.dev/v1alpha1',
    'kind: Vpc',
    'metadata:',
    `  name: ${name}`,
    'spec:',
    `  name: ${displayName}`,
    `  cidrBlock: ${cidrBlock}`,
    '  region: us-east-1',
    '',
  ].join('\n');
}

/** The rows of a kubectl table, cells split on runs of two or more spaces. */
function rows(output: string): string[][] {
  return output
    .trimEnd()
    .split('\n')
    .map((line) => line.trim().split(/\s{2,}/));
}

/** The rows of the `Events:` section `kubectl describe` ends with. */
function describedEvents(output: string): string[][] {
  const section = output.slice(output.indexOf('Events:'));
  // The section's title, then the header and its underline.
  return rows(section).slice(3);
}

describe.skipIf(!available)('kubectl events, get events and describe', () => {
  let server: KubeServer;
  let data: TestSqliteDatabase;
  let runner: ControllerRunner;
  let kubectl: Kubectl;

  beforeAll(async () => {
    server = await startKubeServer({ kinds: loadKinds(VPC_KINDS) });
    data = await openTestSqliteDatabase();
    runner = new ControllerRunner({
      store: server.store,
      logger: createLogger('silent'),
      metrics: createMetrics(),
    });
    for (const controller of vpcControllers(CONFIG, data.database)) runner.register(controller);
    await runner.start();
    kubectl = new Kubectl(server);
    await kubectl.ok('apply', '-f', kubectl.manifest('first.yaml', vpcManifest(FIRST, 'production')));
    await kubectl.ok('wait', '--for=condition=Ready', `vpc/${FIRST}`, '--timeout=30s');
    await kubectl.ok('apply', '-f', kubectl.manifest('second.yaml', vpcManifest(OVERLAPPING, 'staging')));
    await kubectl.ok('wait', '--for=condition=Stalled', `vpc/${OVERLAPPING}`, '--timeout=30s');
  });
  afterAll(async () => {
    await runner?.stop();
    await server?.close();
    await data?.dispose();
    kubectl?.cleanup();
  });

  it('describe of a VPC that came up ends with its Normal events: Provisioning, then Available', async () => {
    const events = await eventually(async () => {
      const found = describedEvents(await kubectl.ok('describe', 'vpc', FIRST));
      expect(found.map((cells) => cells[1])).toEqual(['Provisioning', 'Available']);
      return found;
    });
    expect(events.map((cells) => [cells[0], cells[3]])).toEqual([
      ['Normal', 'cloudplane-controllers'],
      ['Normal', 'cloudplane-controllers'],
    ]);
    expect(events[1]?.[4]).toBe('the VPC and its default parts exist');
  });

  it('describe of an overlapping VPC shows a Warning naming the VPC it overlaps, and kstatus reads it Stalled', async () => {
    const output = await eventually(async () => {
      const described = await kubectl.ok('describe', 'vpc', OVERLAPPING);
      expect(described).toContain('CidrConflict');
      return described;
    });
    const warning = describedEvents(output).find((cells) => cells[1] === 'CidrConflict');
    expect(warning?.[0]).toBe('Warning');
    expect(warning?.[3]).toBe('cloudplane-controllers');
    expect(warning?.[4]).toBe(
      `spec.cidrBlock: 10.60.0.0/16 overlaps VPC "production" (${FIRST}) with block 10.60.0.0/16 in the same region`,
    );
    const stalled = await kubectl.ok(
      'get',
      'vpc',
      OVERLAPPING,
      '-o',
      'jsonpath={.status.conditions[?(@.type=="Stalled")].reason} {.status.observedGeneration} {.metadata.generation}',
    );
    expect(stalled).toBe('CidrConflict 1 1');
  });

  it('kubectl events lists the namespace’s events, narrows to one object with --for and to warnings with --types', async () => {
    const all = rows(await kubectl.ok('events'));
    expect(all[0]).toEqual(['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
    expect(all.slice(1).map((cells) => cells[3])).toEqual(
      expect.arrayContaining([`Vpc/${FIRST}`, `Vpc/${OVERLAPPING}`]),
    );
    const forFirst = rows(await kubectl.ok('events', '--for', `vpc.cloudplane.dev/${FIRST}`));
    expect(forFirst.slice(1).map((cells) => cells[2])).toEqual(['Provisioning', 'Available']);
    const warnings = rows(await kubectl.ok('events', '--types=Warning'));
    expect(warnings.slice(1).map((cells) => [cells[1], cells[2], cells[3]])).toEqual([
      ['Warning', 'CidrConflict', `Vpc/${OVERLAPPING}`],
    ]);
  });

  it('kubectl get events selects by type, reason and involvedObject, printing the kube event columns', async () => {
    const table = rows(await kubectl.ok('get', 'events', '--field-selector', 'type=Warning'));
    expect(table[0]).toEqual(['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
    expect(table.slice(1).map((cells) => cells.slice(1, 4))).toEqual([
      ['Warning', 'CidrConflict', `vpc/${OVERLAPPING}`],
    ]);
    const reasons = await kubectl.ok(
      'get',
      'events',
      '--field-selector',
      `involvedObject.name=${FIRST},involvedObject.kind=Vpc,reason!=Provisioning`,
      '-o',
      'jsonpath={.items[*].reason}',
    );
    expect(reasons).toBe('Available');
    const refused = await kubectl.run('get', 'events', '--field-selector', 'spec.nothing=1');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('field label not supported: spec.nothing');
  });

  it('serves the same events as events.k8s.io/v1, selected by regarding', async () => {
    const listed = JSON.parse(
      await kubectl.ok(
        'get',
        'events.v1.events.k8s.io',
        '--field-selector',
        `regarding.name=${OVERLAPPING}`,
        '-o',
        'json',
      ),
    ) as { items: Record<string, unknown>[] };
    expect(listed.items).toHaveLength(1);
    expect(listed.items[0]).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      reason: 'CidrConflict',
      type: 'Warning',
      regarding: { kind: 'Vpc', name: OVERLAPPING },
      reportingController: 'cloudplane-controllers',
    });
    expect(listed.items[0]?.deprecatedCount).toBeGreaterThanOrEqual(1);
    expect(listed.items[0]?.note).toContain('overlaps VPC "production"');
  });

  it('a repeat is counted on its event, not written again: Last Seen says how often', async () => {
    const count = Number(
      await kubectl.ok(
        'get',
        'events',
        '--field-selector',
        `involvedObject.name=${OVERLAPPING},type=Warning`,
        '-o',
        'jsonpath={.items[0].count}',
      ),
    );
    // Each change of the object is reconciled again, and fails again the same way.
    await kubectl.ok('annotate', 'vpc', OVERLAPPING, 'cloudplane.dev/note=one');
    await kubectl.ok('annotate', '--overwrite', 'vpc', OVERLAPPING, 'cloudplane.dev/note=two');
    const lastSeen = await eventually(async () => {
      const table = rows(
        await kubectl.ok(
          'get',
          'events',
          '--field-selector',
          `involvedObject.name=${OVERLAPPING},type=Warning`,
        ),
      );
      expect(table).toHaveLength(2);
      expect(table[1]?.[0]).toContain(`(x${count + 2} over `);
      return table[1]?.[0];
    });
    expect(lastSeen).toMatch(/^\d+s \(x\d+ over \d+s\)$/);
  });

  it('once the overlap is gone the VPC comes up: Stalled is cleared and describe ends with Available', async () => {
    await kubectl.ok('delete', 'vpc', FIRST, '--wait=true', '--timeout=30s');
    await kubectl.ok('annotate', '--overwrite', 'vpc', OVERLAPPING, 'cloudplane.dev/note=three');
    await kubectl.ok('wait', '--for=condition=Ready', `vpc/${OVERLAPPING}`, '--timeout=30s');
    const conditions = await kubectl.ok(
      'get',
      'vpc',
      OVERLAPPING,
      '-o',
      'jsonpath={range .status.conditions[*]}{.type}={.status} {end}',
    );
    expect(conditions.trim()).toBe('Ready=True');
    const events = await eventually(async () => {
      const found = describedEvents(await kubectl.ok('describe', 'vpc', OVERLAPPING));
      expect(found.at(-1)?.[1]).toBe('Available');
      return found;
    });
    expect(events.map((cells) => [cells[0], cells[1]])).toEqual([
      ['Warning', 'CidrConflict'],
      ['Normal', 'Provisioning'],
      ['Normal', 'Available'],
    ]);
  });

  it('kubectl get cloudplane lists every kind of the category, each saying why it is or is not Ready', async () => {
    const output = await kubectl.ok('get', 'cloudplane');
    const vpcTable = rows(output.slice(0, output.indexOf('\n\n') > 0 ? output.indexOf('\n\n') : undefined));
    expect(vpcTable[0]).toEqual(['NAME', 'CIDR', 'REGION', 'STATUS', 'REASON', 'SUBNETS', 'AGE']);
    expect(vpcTable[1]?.slice(0, 5)).toEqual([
      `vpc.cloudplane.dev/${OVERLAPPING}`,
      '10.60.0.0/16',
      'us-east-1',
      'available',
      'Available',
    ]);
    expect(output).toMatch(/routetable\.cloudplane\.dev\/\S+\s+\S+\s+true\s+0\s+available\s+Available/);
  });

  it('watches events.k8s.io/v1 Events as they are recorded', async () => {
    // -v=6 logs the watch's response once the server has answered it: only then is it listening.
    const watch = kubectl.start(
      'get',
      'events.v1.events.k8s.io',
      '--watch-only',
      '-v=6',
      '--field-selector',
      `regarding.name=${THIRD}`,
      '-o',
      'jsonpath={.regarding.kind}/{.reason}: {.note}{"\\n"}',
    );
    const printed = () =>
      watch
        .output()
        .split('\n')
        .filter((line) => line.startsWith('Vpc/'));
    try {
      await eventually(() => expect(watch.output()).toMatch(/"Response" verb="GET" url="[^"]*watch=true/));
      await kubectl.ok(
        'apply',
        '-f',
        kubectl.manifest('third.yaml', vpcManifest(THIRD, 'third', '10.61.0.0/16')),
      );
      await eventually(() =>
        expect(printed()).toContain('Vpc/Available: the VPC and its default parts exist'),
      );
      expect(printed()[0]).toMatch(/^Vpc\/Provisioning: /);
    } finally {
      watch.process.kill();
      await watch.exited;
    }
  });
});
