import type { PolicyRule } from '../../control-plane/rbac-rules.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APISERVER_PERMISSIONS } from '../../cli/apiserver.js';
import { OPERATOR_PERMISSIONS } from '../../cli/operator.js';
import { rbacRules, type ApiPermission } from '../../control-plane/api-permissions.js';
import { renderCrdFiles } from '../../crds/generate.js';
import { KINDS } from '../../crds/index.js';
import { packageRoot } from '../../crds/registry.js';
import { widgetKind } from '../fixtures/crd-widget.js';
import {
  CHART_DIR,
  HELM,
  helmPresent,
  renderChart,
  type Manifest as RenderedManifest,
} from '../fixtures/chart.js';

const repoRoot = packageRoot(import.meta.url);
const chart = CHART_DIR;
if (!helmPresent) console.warn(`SKIPPING chart RBAC tests: ${HELM} is missing; run npm run tools`);

interface Manifest extends RenderedManifest {
  rules?: PolicyRule[] | null;
  roleRef?: { kind: string; name: string };
  subjects?: { kind: string; name: string; namespace?: string }[];
}

function render(chartDir: string): Manifest[] {
  return renderChart(chartDir) as Manifest[];
}

/** Rules compared as sets: the order of rules, resources and verbs means nothing to RBAC. */
function normalize(rules: readonly PolicyRule[] | null | undefined): string[] {
  return (rules ?? [])
    .map((rule) =>
      JSON.stringify({
        apiGroups: [...(rule.apiGroups ?? [])].sort(),
        resources: [...(rule.resources ?? [])].sort(),
        verbs: [...rule.verbs].sort(),
      }),
    )
    .sort();
}

function role(manifests: Manifest[], kind: 'ClusterRole' | 'Role', name: string): Manifest {
  const found = manifests.find((manifest) => manifest.kind === kind && manifest.metadata.name === name);
  if (!found) throw new Error(`the chart renders no ${kind} ${name}`);
  return found;
}

const COMPONENTS: [component: string, permissions: readonly ApiPermission[]][] = [
  ['operator', OPERATOR_PERMISSIONS],
  ['apiserver', APISERVER_PERMISSIONS],
];

/** The Role and ClusterRole names a component's permissions of each scope land in. */
const ROLE_NAMES: Record<
  ApiPermission['scope'],
  (component: string) => [kind: 'ClusterRole' | 'Role', name: string]
> = {
  cluster: (component) => ['ClusterRole', `cloudplane-${component}`],
  'release-namespace': (component) => ['Role', `cloudplane-${component}-leader-election`],
};

function describeRbac(
  title: string,
  prepare: () => { chartDir: string; kinds: string[]; cleanup?: () => void },
) {
  describe.skipIf(!helmPresent)(title, () => {
    let manifests: Manifest[];
    let kinds: string[];
    let cleanup: (() => void) | undefined;

    beforeAll(() => {
      const prepared = prepare();
      kinds = prepared.kinds;
      cleanup = prepared.cleanup;
      manifests = render(prepared.chartDir);
    });
    afterAll(() => cleanup?.());

    const cases = COMPONENTS.flatMap(([component, permissions]) =>
      (['cluster', 'release-namespace'] as const)
        .filter((scope) => permissions.some((permission) => permission.scope === scope))
        .map((scope) => {
          const [kind, name] = ROLE_NAMES[scope](component);
          return { component, permissions, scope, kind, name };
        }),
    );

    const named = cases.map((entry) => [entry.component, entry.kind, entry.name, entry] as const);

    it.each(named)(
      'grants the %s exactly what its code declares in %s %s',
      (_component, _kind, _name, entry) => {
        const rendered = role(manifests, entry.kind, entry.name).rules;
        expect(normalize(rendered)).toEqual(normalize(rbacRules(entry.permissions, entry.scope, kinds)));
      },
    );

    it('renders no Role or ClusterRole beyond those', () => {
      const rendered = manifests
        .filter((manifest) => manifest.kind === 'Role' || manifest.kind === 'ClusterRole')
        .map((manifest) => `${manifest.kind}/${manifest.metadata.name}`)
        .sort();
      expect(rendered).toEqual(cases.map((entry) => `${entry.kind}/${entry.name}`).sort());
    });

    it.each(named)(
      'binds the %s %s %s to its own service account only',
      (_component, _kind, _name, entry) => {
        const binding = manifests.find(
          (manifest) => manifest.kind === `${entry.kind}Binding` && manifest.roleRef?.name === entry.name,
        );
        expect(binding?.roleRef?.kind).toBe(entry.kind);
        expect(binding?.subjects).toEqual([
          { kind: 'ServiceAccount', name: `cloudplane-${entry.component}`, namespace: 'platform' },
        ]);
      },
    );
  });
}

describe('chart RBAC against the permissions the code declares', () => {
  describeRbac('as shipped, with the kinds crds/index.ts lists', () => ({
    chartDir: chart,
    kinds: KINDS.map((kind) => kind.plural),
  }));

  describeRbac('with one more kind installed', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-chart-rbac-'));
    fs.cpSync(chart, path.join(dir, 'cloudplane'), { recursive: true });
    const crd = renderCrdFiles([widgetKind], repoRoot).get(
      'charts/cloudplane/crds/widgets.cloudplane.dev.yaml',
    );
    fs.writeFileSync(path.join(dir, 'cloudplane/crds/widgets.cloudplane.dev.yaml'), crd ?? '');
    return {
      chartDir: path.join(dir, 'cloudplane'),
      kinds: [...KINDS.map((kind) => kind.plural), widgetKind.plural],
      cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  });
});
