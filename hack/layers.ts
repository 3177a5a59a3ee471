/**
 * The layers of the source tree and the one direction imports may take between them (see
 * ARCHITECTURE.md). `checkLayers(root)` reads every source file's relative imports (type-only
 * imports included: a type is a dependency too) and reports
 *   - an import from a lower layer into a higher one,
 *   - an import cycle between files,
 *   - an import into a folder with a face (`index.ts`) that bypasses the face,
 *   - an import of one workload mode (`workloads/local`, `workloads/kubernetes`) from anywhere
 *     but the composition roots: everything else uses the runtime's interface.
 * Run directly (`npm run check:layers`), it prints the problems and exits 1 when there are any.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Ground floor first. A file may import from its own layer and the layers before it. */
export interface Layer {
  name: string;
  folders: readonly string[];
}

export const LAYERS: readonly Layer[] = [
  // Below everything: the client SDK speaks to the server over HTTP and imports none of it.
  { name: 'client SDK', folders: ['sdk'] },
  // The command-line client: commands over the SDK, never the server's code.
  { name: 'client', folders: ['client'] },
  // The web console: pages over the SDK in a browser, never the server's code.
  { name: 'console', folders: ['console'] },
  { name: 'config', folders: ['config'] },
  { name: 'observability', folders: ['observability'] },
  { name: 'security', folders: ['security'] },
  { name: 'control plane', folders: ['control-plane'] },
  { name: 'kind types', folders: ['crds'] },
  { name: 'data plane', folders: ['data-plane'] },
  { name: 'workloads', folders: ['workloads'] },
  { name: 'controller runtime', folders: ['controllers/runtime'] },
  { name: 'services', folders: ['accounts', 'vault', 'integrations', 'schema-registry', 'connect'] },
  { name: 'kinds', folders: ['controllers'] },
  { name: 'jobs', folders: ['jobs'] },
  { name: 'REST facade', folders: ['apiserver'] },
  { name: 'composition roots', folders: ['cli'] },
];

/**
 * Folders whose `index.ts` is the only door for code outside them: each kind's folder and the
 * control plane's backends. A folder pattern ending in `/*` stands for each of its sub-folders.
 */
export const FACES: readonly string[] = [
  'controllers/*',
  'control-plane/embedded-store',
  'control-plane/kubernetes-store',
  'control-plane/kubernetes-api',
];

/**
 * The workload runtimes' modes. Only the composition roots choose a mode and name it; kinds,
 * services, jobs and the facade use `workloads/runtime.ts`, and a mode never imports another.
 */
export const MODES: readonly string[] = ['workloads/local', 'workloads/kubernetes'];
const MODE_CHOOSERS: readonly string[] = ['cli'];

function modeOf(file: string): string | undefined {
  return MODES.find((mode) => file.startsWith(`${mode}/`));
}

/** Never layered: tools and tests may use any layer. */
const OUTSIDE: readonly string[] = ['test', 'hack', 'node_modules', 'dist', 'charts', '.tools'];

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)|^\s*import\s+['"](\.{1,2}\/[^'"]+)['"]/gm;

function sourceFiles(root: string, dir = ''): string[] {
  const files: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const relative = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (!OUTSIDE.includes(relative) && !entry.name.startsWith('.'))
        files.push(...sourceFiles(root, relative));
    } else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') && dir !== '') {
      files.push(relative);
    }
  }
  return files;
}

/** The layer index of a file, the most specific folder deciding; undefined outside every layer. */
export function layerOf(file: string): number | undefined {
  let best: number | undefined;
  let bestLength = -1;
  LAYERS.forEach((layer, index) => {
    for (const folder of layer.folders) {
      if (file.startsWith(`${folder}/`) && folder.length > bestLength) {
        best = index;
        bestLength = folder.length;
      }
    }
  });
  return best;
}

/** The folder whose face `file` sits behind, if any. */
function faceFolderOf(file: string): string | undefined {
  for (const pattern of FACES) {
    if (!pattern.endsWith('/*')) {
      if (file.startsWith(`${pattern}/`)) return pattern;
      continue;
    }
    const parent = pattern.slice(0, -2);
    if (!file.startsWith(`${parent}/`)) continue;
    const [child, ...rest] = file.slice(parent.length + 1).split('/');
    if (rest.length === 0) continue;
    const folder = `${parent}/${child}`;
    // A sub-folder that is a layer of its own (controllers/runtime) is not a kind.
    if (layerOf(`${folder}/index.ts`) === layerOf(`${parent}/index.ts`)) return folder;
  }
  return undefined;
}

function importsOf(root: string, file: string): string[] {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  const targets: string[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const specifier = (match[1] ?? match[2] ?? match[3])!;
    const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
    targets.push(resolved.replace(/\.js$/, '.ts'));
  }
  return targets;
}

/** Strongly connected components of more than one file, or a file importing itself (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** Every problem in the tree at `root`, as sentences; empty when the layering holds. */
export function checkLayers(root: string): string[] {
  const problems: string[] = [];
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(root)) {
    const from = layerOf(file);
    if (from === undefined) {
      problems.push(`${file}: outside every layer; add its folder to LAYERS in hack/layers.ts`);
      continue;
    }
    const targets = importsOf(root, file);
    graph.set(file, targets);
    for (const target of targets) {
      const to = layerOf(target);
      if (to !== undefined && to > from) {
        problems.push(
          `${file} imports ${target}: the ${LAYERS[from]!.name} layer must not import from the ${LAYERS[to]!.name} layer above it`,
        );
      }
      const mode = modeOf(target);
      if (mode && modeOf(file) !== mode && !MODE_CHOOSERS.some((root) => file.startsWith(`${root}/`))) {
        problems.push(
          `${file} imports ${target}: only the composition roots (cli/) name a workload mode; use workloads/runtime.ts`,
        );
      }
      const face = faceFolderOf(target);
      if (face && !file.startsWith(`${face}/`) && target !== `${face}/index.ts`) {
        problems.push(`${file} imports ${target}: outside ${face}/, import its face ${face}/index.ts`);
      }
    }
  }
  for (const component of cycles(graph)) problems.push(`import cycle: ${component.join(' -> ')}`);
  return problems;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
  const problems = checkLayers(root);
  for (const problem of problems) console.log(problem);
  console.log(problems.length === 0 ? 'layers: ok' : `layers: ${problems.length} problems`);
  process.exitCode = problems.length === 0 ? 0 : 1;
}
