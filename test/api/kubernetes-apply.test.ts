import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aNetwork, type Network } from '../fixtures/kube-kinds.js';
import { json, NETWORKS, patchWith } from '../fixtures/kube-requests.js';
import { startKubeServer, type KubeServer } from '../fixtures/kube-server.js';

let server: KubeServer;

beforeAll(async () => {
  server = await startKubeServer();
});
afterAll(async () => {
  await server.close();
});

const APPLY = 'application/apply-patch+yaml';

function apply(name: string, manager: string, body: unknown, query = ''): Promise<Response> {
  return patchWith(server, `${NETWORKS}/${name}?fieldManager=${manager}${query}`, APPLY, body);
}

type Managed = Network & {
  metadata: { managedFields?: { manager: string; operation: string; fieldsV1: unknown }[] };
};

describe('server-side apply', () => {
  it('creates an absent object and records the applier as owner of what it set', async () => {
    const response = await apply('ssa-new', 'deployer', aNetwork('ssa-new', { zones: 2 }));
    expect(response.status).toBe(201);
    const created = await json<Managed>(response);
    expect(created.spec).toEqual({ cidrBlock: '10.0.0.0/16', zones: 2 });
    expect(created.metadata.managedFields).toEqual([
      expect.objectContaining({
        manager: 'deployer',
        operation: 'Apply',
        fieldsV1: { 'f:spec': { 'f:cidrBlock': {}, 'f:zones': {} } },
      }),
    ]);
  });

  it('takes a YAML body', async () => {
    const yaml = [
      'apiVersion: test.cloudplane.dev/v1alpha1',
      'kind: Network',
      'metadata:',
      '  name: ssa-yaml',
      'spec:',
      '  cidrBlock: 10.9.0.0/16',
    ].join('\n');
    const response = await apply('ssa-yaml', 'deployer', yaml);
    expect(response.status).toBe(201);
  });

  it('changes nothing, not even the resourceVersion, when the same configuration is applied again', async () => {
    const first = await json<Network>(
      await apply('ssa-again', 'deployer', aNetwork('ssa-again', { zones: 2 })),
    );
    const second = await json<Network>(
      await apply('ssa-again', 'deployer', aNetwork('ssa-again', { zones: 2 })),
    );
    expect(second.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
  });

  it('removes a field the applier stops applying, and keeps those it never applied', async () => {
    await apply('ssa-prune', 'deployer', aNetwork('ssa-prune', { zones: 2 }));
    await patchWith(server, `${NETWORKS}/ssa-prune?fieldManager=editor`, 'application/merge-patch+json', {
      spec: { tags: { team: 'net' } },
    });
    const response = await apply('ssa-prune', 'deployer', aNetwork('ssa-prune'));
    expect((await json<Network>(response)).spec).toEqual({ cidrBlock: '10.0.0.0/16', tags: { team: 'net' } });
  });

  it('answers 409 naming the other manager and the field it owns with another value', async () => {
    await apply('ssa-conflict', 'deployer', aNetwork('ssa-conflict', { zones: 2 }));
    const response = await apply('ssa-conflict', 'other', aNetwork('ssa-conflict', { zones: 3 }));
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({
      kind: 'Status',
      reason: 'Conflict',
      message:
        'Apply failed with 1 conflict: conflict with "deployer" using test.cloudplane.dev/v1alpha1: .spec.zones',
      details: { causes: [{ reason: 'FieldManagerConflict', field: '.spec.zones' }] },
    });
  });

  it('shares a field applied with the same value, without conflict', async () => {
    await apply('ssa-shared', 'deployer', aNetwork('ssa-shared', { zones: 2 }));
    const response = await apply('ssa-shared', 'other', aNetwork('ssa-shared', { zones: 2 }));
    expect(response.status).toBe(200);
  });

  it('with force=true takes the field over from its owner', async () => {
    await apply('ssa-force', 'deployer', aNetwork('ssa-force', { zones: 2 }));
    const response = await apply('ssa-force', 'other', aNetwork('ssa-force', { zones: 3 }), '&force=true');
    const forced = await json<Managed>(response);
    expect(forced.spec?.zones).toBe(3);
    const deployer = forced.metadata.managedFields?.find((entry) => entry.manager === 'deployer');
    expect(deployer?.fieldsV1).toEqual({ 'f:spec': { 'f:cidrBlock': {} } });
  });

  it('conflicts with a field another client wrote by update', async () => {
    await apply('ssa-updated', 'deployer', aNetwork('ssa-updated', { zones: 2 }));
    await patchWith(
      server,
      `${NETWORKS}/ssa-updated?fieldManager=kubectl-edit`,
      'application/merge-patch+json',
      {
        spec: { zones: 4 },
      },
    );
    const response = await apply('ssa-updated', 'deployer', aNetwork('ssa-updated', { zones: 2 }));
    expect(response.status).toBe(409);
    expect((await json(response)).message).toContain('conflict with "kubectl-edit"');
  });

  it('answers 422 without a fieldManager', async () => {
    const response = await patchWith(server, `${NETWORKS}/ssa-anonymous`, APPLY, aNetwork('ssa-anonymous'));
    expect(response.status).toBe(422);
    expect((await json(response)).message).toContain('fieldManager: Required value');
  });

  it('answers 400 for an applied configuration without apiVersion and kind', async () => {
    const response = await apply('ssa-untyped', 'deployer', { metadata: { name: 'ssa-untyped' } });
    expect(response.status).toBe(400);
  });
});
