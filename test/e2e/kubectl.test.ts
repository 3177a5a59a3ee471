import fs from 'node:fs';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControllerRunner } from '../../controllers/runtime/controller-runner.js';
import { createLogger } from '../../observability/logger.js';
import { createMetrics } from '../../observability/metrics.js';
import { eventually } from '../fixtures/eventually.js';
import { GADGET, GADGET_PART, gadgetController } from '../fixtures/gadget-controller.js';
import { networkKind, type Network } from '../fixtures/kube-kinds.js';
import { Kubectl, KUBECTL } from '../fixtures/kube-kubectl.js';
import { startKubeServer, TENANT_NAMESPACE, TENANT_TOKEN, type KubeServer } from '../fixtures/kube-server.js';

const available = fs.existsSync(KUBECTL);
if (!available) console.warn(`SKIPPING the kubectl e2e suite: ${KUBECTL} is missing; run npm run tools`);

function network(
  name: string,
  extra: { zones?: number; finalizer?: string; namespace?: string } = {},
): string {
  return [
    'apiVersion: test.cloudplane.dev/v1alpha1',
    'kind: Network',
    'metadata:',
    `  name: ${name}`,
    ...(extra.namespace ? [`  namespace: ${extra.namespace}`] : []),
    ...(extra.finalizer ? ['  finalizers:', `  - ${extra.finalizer}`] : []),
    'spec:',
    '  cidrBlock: 10.20.0.0/16',
    ...(extra.zones !== undefined ? [`  zones: ${extra.zones}`] : []),
    '',
  ].join('\n');
}

describe.skipIf(!available)('kubectl against the embedded control plane', () => {
  let server: KubeServer;
  let runner: ControllerRunner;
  let kubectl: Kubectl;

  beforeAll(async () => {
    server = await startKubeServer({ kinds: [networkKind, GADGET, GADGET_PART] });
    runner = new ControllerRunner({
      store: server.store,
      logger: createLogger('silent'),
      metrics: createMetrics(),
    });
    runner.register(gadgetController());
    await runner.start();
    kubectl = new Kubectl(server);
  });
  afterAll(async () => {
    await runner?.stop();
    await server?.close();
    kubectl?.cleanup();
  });

  const stored = (name: string, namespace = 'default') =>
    server.store.get<Network>(networkKind, namespace, name);

  it('applies a manifest: created, then configured when it changes, unchanged when it does not', async () => {
    const file = kubectl.manifest('applied.yaml', network('applied', { zones: 1 }));
    expect(await kubectl.ok('apply', '-f', file)).toBe('network.test.cloudplane.dev/applied created\n');
    expect(await kubectl.ok('apply', '-f', file)).toBe('network.test.cloudplane.dev/applied unchanged\n');
    fs.writeFileSync(file, network('applied', { zones: 2 }));
    expect(await kubectl.ok('apply', '-f', file)).toBe('network.test.cloudplane.dev/applied configured\n');
    expect((await stored('applied')).spec?.zones).toBe(2);
  });

  it('gets a table with the printer columns', async () => {
    await kubectl.ok('apply', '-f', kubectl.manifest('listed.yaml', network('listed', { zones: 3 })));
    const lines = (await kubectl.ok('get', 'networks')).trimEnd().split('\n');
    expect(lines[0]?.split(/\s+/)).toEqual(['NAME', 'CIDR', 'PHASE', 'READY', 'AGE']);
    expect(lines.find((line) => line.startsWith('listed '))).toMatch(/^listed\s+10\.20\.0\.0\/16\s+\d+s$/);
    const wide = (await kubectl.ok('get', 'net', 'listed', '-o', 'wide')).split('\n');
    expect(wide[0]?.split(/\s+/)).toEqual(['NAME', 'CIDR', 'PHASE', 'READY', 'ZONES', 'AGE']);
  });

  it('prints the object as YAML', async () => {
    await kubectl.ok('apply', '-f', kubectl.manifest('yaml.yaml', network('as-yaml', { zones: 4 })));
    const object = parse(await kubectl.ok('get', 'network', 'as-yaml', '-o', 'yaml')) as Network;
    expect(object).toMatchObject({
      apiVersion: 'test.cloudplane.dev/v1alpha1',
      kind: 'Network',
      metadata: { name: 'as-yaml', namespace: 'default', generation: 1 },
      spec: { cidrBlock: '10.20.0.0/16', zones: 4 },
    });
  });

  it('patches with --type merge and --type json', async () => {
    await kubectl.ok('apply', '-f', kubectl.manifest('patched.yaml', network('patched')));
    expect(await kubectl.ok('patch', 'net', 'patched', '--type', 'merge', '-p', '{"spec":{"zones":5}}')).toBe(
      'network.test.cloudplane.dev/patched patched\n',
    );
    await kubectl.ok(
      'patch',
      'net',
      'patched',
      '--type',
      'json',
      '-p',
      '[{"op":"add","path":"/spec/dnsServers","value":["10.0.0.2"]}]',
    );
    expect((await stored('patched')).spec).toMatchObject({ zones: 5, dnsServers: ['10.0.0.2'] });
  });

  it('waits until the controller reports Ready', async () => {
    const manifest = [
      'apiVersion: test.cloudplane.dev/v1alpha1',
      'kind: Gadget',
      'metadata:',
      '  name: awaited',
      'spec:',
      '  parts: 2',
    ].join('\n');
    await kubectl.ok('apply', '-f', kubectl.manifest('gadget.yaml', manifest));
    const output = await kubectl.ok('wait', '--for=condition=Ready', 'gadget/awaited', '--timeout=30s');
    expect(output).toBe('gadget.test.cloudplane.dev/awaited condition met\n');
    expect(await kubectl.ok('get', 'gadgetparts', '-o', 'name')).toContain(
      'gadgetpart.test.cloudplane.dev/awaited-part-1',
    );
  });

  it('deletes an object only once its finalizer is removed', async () => {
    const file = kubectl.manifest('held.yaml', network('held', { finalizer: 'test.cloudplane.dev/hold' }));
    await kubectl.ok('apply', '-f', file);
    const deletion = kubectl.start('delete', 'network', 'held', '--timeout=30s');
    await eventually(async () => expect((await stored('held')).metadata.deletionTimestamp).toBeDefined());
    expect((await stored('held')).metadata.finalizers).toEqual(['test.cloudplane.dev/hold']);
    await kubectl.ok(
      'patch',
      'network',
      'held',
      '--type',
      'json',
      '-p',
      '[{"op":"remove","path":"/metadata/finalizers"}]',
    );
    expect(await deletion.exited).toBe(0);
    expect(deletion.output()).toContain('network.test.cloudplane.dev "held" deleted');
    const gone = await kubectl.run('get', 'network', 'held');
    expect(gone.stderr).toContain(
      'Error from server (NotFound): networks.test.cloudplane.dev "held" not found',
    );
  });

  it('explains the kind and its fields from the schema', async () => {
    const kind = await kubectl.ok('explain', 'networks');
    expect(kind).toContain('KIND:       Network');
    expect(kind).toContain('Network is an isolated address space that subnets are carved from.');
    const spec = await kubectl.ok('explain', 'network.spec');
    expect(spec).toMatch(
      /cidrBlock\s+<string> -required-\n\s+The IPv4 range of the network, in CIDR notation\./,
    );
    expect(spec).toMatch(/dnsServers\s+<\[\]string>/);
  });

  it('explains every field recursively, shared schemas such as the conditions included', async () => {
    const spec = await kubectl.ok('explain', 'network.spec', '--recursive');
    expect(spec).toMatch(/cidrBlock\s+<string> -required-/);
    expect(spec).toMatch(/dnsServers\s+<\[\]string>/);
    expect(spec).toMatch(/zones\s+<integer>/);
    const kind = await kubectl.ok('explain', 'network', '--recursive');
    expect(kind).toMatch(/metadata\s+<ObjectMeta>\n\s+annotations\s+<map\[string\]string>/);
    expect(kind).toMatch(/conditions\s+<\[\]Condition>\n\s+lastTransitionTime\s+<string>/);
    const conditions = await kubectl.ok('explain', 'network.status.conditions');
    expect(conditions).toMatch(/FIELD: conditions <\[\]Condition>/);
    expect(conditions).toMatch(/status\s+<string> -required-/);
  });

  it('refuses with --validate=strict a manifest naming a field the schema does not have', async () => {
    const manifest = network('strict').replace('spec:\n', 'spec:\n  colour: blue\n');
    const refused = await kubectl.run(
      'apply',
      '--validate=strict',
      '-f',
      kubectl.manifest('strict.yaml', manifest),
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('unknown field "spec.colour"');
    expect((await kubectl.run('get', 'network', 'strict')).code).not.toBe(0);
  });

  it('diffs a changed manifest against the live object, and finds nothing once applied', async () => {
    const file = kubectl.manifest('diffed.yaml', network('diffed', { zones: 1 }));
    await kubectl.ok('apply', '-f', file);
    expect(await kubectl.run('diff', '-f', file)).toMatchObject({ code: 0, stdout: '' });
    fs.writeFileSync(file, network('diffed', { zones: 2 }));
    const changed = await kubectl.run('diff', '-f', file);
    expect(changed.code).toBe(1);
    expect(changed.stdout).toMatch(/^-\s+zones: 1$/m);
    expect(changed.stdout).toMatch(/^\+\s+zones: 2$/m);
    expect((await stored('diffed')).spec?.zones).toBe(1);
  });

  it('watches: a change shows up as a new line of get -w', async () => {
    await kubectl.ok('apply', '-f', kubectl.manifest('watched.yaml', network('watched')));
    const watch = kubectl.start('get', 'network', 'watched', '--watch');
    try {
      await eventually(() => expect(watch.output()).toMatch(/^NAME\s+CIDR.*\nwatched\s/));
      await kubectl.ok(
        'patch',
        'network',
        'watched',
        '--subresource=status',
        '--type',
        'merge',
        '-p',
        '{"status":{"phase":"Ready"}}',
      );
      await eventually(() => expect(watch.output()).toMatch(/\nwatched\s+10\.20\.0\.0\/16\s+Ready\s/));
    } finally {
      watch.process.kill();
      await watch.exited;
    }
  });

  it('applies server-side, and reports a conflict with the field another manager set', async () => {
    const file = kubectl.manifest('ssa.yaml', network('server-applied', { zones: 1 }));
    expect(await kubectl.ok('apply', '--server-side', '-f', file)).toBe(
      'network.test.cloudplane.dev/server-applied serverside-applied\n',
    );
    await kubectl.ok('patch', 'net', 'server-applied', '--type', 'merge', '-p', '{"spec":{"zones":3}}');
    const conflict = await kubectl.run('apply', '--server-side', '-f', file);
    expect(conflict.code).not.toBe(0);
    expect(conflict.stderr).toContain('conflict with "kubectl-patch"');
    expect(await kubectl.ok('apply', '--server-side', '--force-conflicts', '-f', file)).toContain(
      'serverside-applied',
    );
    expect((await stored('server-applied')).spec?.zones).toBe(1);
  });

  it('creates a namespace, works in it with -n, and lists across namespaces with -A', async () => {
    expect(await kubectl.ok('create', 'namespace', 'team-b')).toBe('namespace/team-b created\n');
    expect(await kubectl.ok('get', 'namespaces', '-o', 'name')).toContain('namespace/team-b');
    await kubectl.ok('apply', '-n', 'team-b', '-f', kubectl.manifest('team-b.yaml', network('in-team-b')));
    const lines = (await kubectl.ok('get', 'networks', '-A')).trimEnd().split('\n');
    expect(lines[0]?.split(/\s+/).slice(0, 2)).toEqual(['NAMESPACE', 'NAME']);
    expect(lines.some((line) => /^team-b\s+in-team-b\s/.test(line))).toBe(true);
    expect(lines.some((line) => /^default\s+applied\s/.test(line))).toBe(true);
  });

  it('refuses a namespace the caller may not use, and shows it its own', async () => {
    const tenant = new Kubectl(server, TENANT_TOKEN);
    try {
      const refused = await tenant.run('get', 'networks', '-n', 'default');
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain(
        'Error from server (Forbidden): networks.test.cloudplane.dev is forbidden: User "tenant-a-user" cannot list resource "networks" in API group "test.cloudplane.dev" in the namespace "default"',
      );
      await tenant.ok('apply', '-n', TENANT_NAMESPACE, '-f', tenant.manifest('own.yaml', network('own')));
      expect(await tenant.ok('get', 'networks', '-A', '-o', 'name')).toBe(
        'network.test.cloudplane.dev/own\n',
      );
    } finally {
      tenant.cleanup();
    }
  });

  it('asks for credentials when the token is wrong', async () => {
    const stranger = new Kubectl(server, 'not-the-token');
    try {
      const refused = await stranger.run('get', 'networks');
      expect(refused.stderr).toContain('You must be logged in to the server');
    } finally {
      stranger.cleanup();
    }
  });

  it('creates a ServiceAccount, binds it a Role and answers auth can-i as that account', async () => {
    await kubectl.ok('create', 'namespace', 'builders');
    await kubectl.ok('create', 'serviceaccount', 'builder', '-n', 'builders');
    await kubectl.ok(
      'create',
      'role',
      'network-reader',
      '-n',
      'builders',
      '--verb=get,list,watch',
      '--resource=networks.test.cloudplane.dev',
    );
    await kubectl.ok(
      'create',
      'rolebinding',
      'builder-reads-networks',
      '-n',
      'builders',
      '--role=network-reader',
      '--serviceaccount=builders:builder',
    );
    const token = (await kubectl.ok('create', 'token', 'builder', '-n', 'builders', '--duration=1h')).trim();
    const builder = new Kubectl(server, token);
    try {
      const can = (...args: string[]) => builder.run('auth', 'can-i', ...args);
      expect(await can('list', 'networks.test.cloudplane.dev', '-n', 'builders')).toMatchObject({
        code: 0,
        stdout: 'yes\n',
      });
      expect(await can('delete', 'networks.test.cloudplane.dev', '-n', 'builders')).toMatchObject({
        code: 1,
        stdout: 'no\n',
      });
      expect(await can('list', 'networks.test.cloudplane.dev', '-n', 'default')).toMatchObject({ code: 1 });
      expect(await builder.ok('auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}')).toBe(
        'system:serviceaccount:builders:builder',
      );
      await builder.ok('get', 'networks', '-n', 'builders');
      const refused = await builder.run('get', 'networks', '-n', 'default');
      expect(refused.stderr).toContain(
        'networks.test.cloudplane.dev is forbidden: User "system:serviceaccount:builders:builder" cannot list resource "networks" in API group "test.cloudplane.dev" in the namespace "default"',
      );
    } finally {
      builder.cleanup();
    }
  });
});
