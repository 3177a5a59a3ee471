import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { packageRoot } from '../../crds/registry.js';
import { checkLayers } from '../../hack/layers.js';

const repoRoot = packageRoot(import.meta.url);
const trees: string[] = [];

/** A scratch tree of the given files (path → content). */
function tree(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-layers-'));
  trees.push(dir);
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), content);
  }
  return dir;
}

afterEach(() => {
  for (const dir of trees.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the layers of the source tree', () => {
  it('hold in this repository: no upward import, no cycle, no face bypassed', () => {
    expect(checkLayers(repoRoot)).toEqual([]);
  });

  it.each<{ case: string; files: Record<string, string>; problem: string }>([
    {
      case: 'a lower layer importing a higher one',
      files: {
        'control-plane/types.ts': "import type { App } from '../apiserver/app.js';\nexport type X = App;\n",
        'apiserver/app.ts': 'export type App = string;\n',
      },
      problem:
        'control-plane/types.ts imports apiserver/app.ts: the control plane layer must not import from the REST facade layer above it',
    },
    {
      case: 'a type-only import counts too',
      files: {
        'config/http.ts':
          "import type { Metrics } from '../observability/metrics.js';\nexport type M = Metrics;\n",
        'observability/metrics.ts': 'export type Metrics = number;\n',
      },
      problem:
        'config/http.ts imports observability/metrics.ts: the config layer must not import from the observability layer above it',
    },
    {
      case: 'a dynamic import',
      files: {
        'jobs/job.ts': "export const load = () => import('../cli/serve.js');\n",
        'cli/serve.ts': 'export const serve = 1;\n',
      },
      problem:
        'jobs/job.ts imports cli/serve.ts: the jobs layer must not import from the composition roots layer above it',
    },
    {
      case: 'an import cycle within a layer',
      files: {
        'vault/a.ts': "import { b } from './b.js';\nexport const a = b;\n",
        'vault/b.ts': "import { a } from './a.js';\nexport const b = a;\n",
      },
      problem: 'import cycle: vault/a.ts -> vault/b.ts',
    },
    {
      case: "a kind's internals reached around its face",
      files: {
        'controllers/vpc/index.ts': "export { vpcMessage } from './engine.js';\n",
        'controllers/vpc/engine.ts': "export const vpcMessage = 'm';\n",
        'apiserver/routes/vpc.ts':
          "import { vpcMessage } from '../../controllers/vpc/engine.js';\nexport const m = vpcMessage;\n",
      },
      problem:
        'apiserver/routes/vpc.ts imports controllers/vpc/engine.ts: outside controllers/vpc/, import its face controllers/vpc/index.ts',
    },
    {
      case: 'a kind importing the local workload mode',
      files: {
        'workloads/local/kafka/index.ts': 'export const scram = 1;\n',
        'controllers/streaming/credentials.ts':
          "import { scram } from '../../workloads/local/kafka/index.js';\nexport const c = scram;\n",
      },
      problem:
        'controllers/streaming/credentials.ts imports workloads/local/kafka/index.ts: only the composition roots (cli/) name a workload mode; use workloads/runtime.ts',
    },
    {
      case: 'a service importing the kubernetes workload mode',
      files: {
        'workloads/kubernetes/render.ts': 'export const label = 1;\n',
        'connect/worker.ts':
          "import { label } from '../workloads/kubernetes/render.js';\nexport const w = label;\n",
      },
      problem:
        'connect/worker.ts imports workloads/kubernetes/render.ts: only the composition roots (cli/) name a workload mode; use workloads/runtime.ts',
    },
    {
      case: 'the facade importing a workload mode',
      files: {
        'workloads/local/backup-bucket.ts': 'export const sign = 1;\n',
        'apiserver/routes/backups.ts':
          "import { sign } from '../../workloads/local/backup-bucket.js';\nexport const s = sign;\n",
      },
      problem:
        'apiserver/routes/backups.ts imports workloads/local/backup-bucket.ts: only the composition roots (cli/) name a workload mode; use workloads/runtime.ts',
    },
    {
      case: 'one workload mode importing the other',
      files: {
        'workloads/local/shares.ts': 'export const share = 1;\n',
        'workloads/kubernetes/shares.ts':
          "import { share } from '../local/shares.js';\nexport const s = share;\n",
      },
      problem:
        'workloads/kubernetes/shares.ts imports workloads/local/shares.ts: only the composition roots (cli/) name a workload mode; use workloads/runtime.ts',
    },
    {
      case: 'a folder outside every layer',
      files: { 'utils/misc.ts': 'export const x = 1;\n' },
      problem: 'utils/misc.ts: outside every layer; add its folder to LAYERS in hack/layers.ts',
    },
  ])('reports $case', ({ files, problem }) => {
    expect(checkLayers(tree(files))).toEqual([problem]);
  });

  it('accepts imports downward, within a layer, through faces, of a mode from cli/, and from tests and tools', () => {
    const root = tree({
      'config/vpc.ts': 'export interface VpcConfig { regions: string[] }\n',
      'controllers/runtime/queue.ts': 'export const queue = 1;\n',
      'controllers/vpc/index.ts': "export { vpcController } from './vpc-controller.js';\n",
      'controllers/vpc/vpc-controller.ts':
        "import type { VpcConfig } from '../../config/vpc.js';\nimport { queue } from '../runtime/queue.js';\nexport const vpcController = (c: VpcConfig) => [c, queue];\n",
      'cli/serve.ts':
        "import { vpcController } from '../controllers/vpc/index.js';\nexport const s = vpcController;\n",
      'workloads/runtime.ts': 'export interface WorkloadRuntime { kind: string }\n',
      'workloads/local/index.ts':
        "import type { WorkloadRuntime } from '../runtime.js';\nexport const local = (): WorkloadRuntime => ({ kind: 'local' });\n",
      'controllers/vpc/uses-runtime.ts':
        "import type { WorkloadRuntime } from '../../workloads/runtime.js';\nexport type R = WorkloadRuntime;\n",
      'cli/runtime.ts': "import { local } from '../workloads/local/index.js';\nexport const r = local;\n",
      'test/unit/vpc.test.ts': "import '../../controllers/vpc/vpc-controller.js';\n",
      'hack/tool.ts': "import '../cli/serve.js';\n",
    });
    expect(checkLayers(root)).toEqual([]);
  });
});
