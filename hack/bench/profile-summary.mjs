// Summarises a V8 .cpuprofile (from `node --cpu-prof`) by self time: the functions, and the
// files, where the samples landed. Paths are shown relative to the repository.
//
//   node hack/bench/profile-summary.mjs CPU.*.cpuprofile [--top 40] [--callers executeQuery]
//
// --callers NAME adds the call paths (up to eight frames) that led to the function NAME.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args.splice(topAt, 2)[1]) : 40;
const callersAt = args.indexOf('--callers');
const callersOf = callersAt >= 0 ? args.splice(callersAt, 2)[1] : undefined;
const CALLER_DEPTH = 8;
if (args.length === 0) {
  console.error('usage: node hack/bench/profile-summary.mjs <file.cpuprofile>... [--top N]');
  process.exit(2);
}

function shortUrl(url) {
  if (!url) return '';
  const file = url.startsWith('file://') ? fileURLToPath(url) : url;
  return file.startsWith(root) ? path.relative(root, file) : file;
}

const byFunction = new Map();
const byFile = new Map();
const byPath = new Map();
let totalUs = 0;

for (const file of args) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const frame = (id) => {
    const { functionName, url, lineNumber } = nodes.get(id).callFrame;
    const where = shortUrl(url);
    return `${functionName || '(anonymous)'}${where ? ` ${where}:${lineNumber + 1}` : ''}`;
  };
  // samples[i] was taken timeDeltas[i] after the previous one; charge that time to the sample's node.
  profile.samples.forEach((id, index) => {
    const micros = profile.timeDeltas[index] ?? 0;
    const { functionName, url, lineNumber } = nodes.get(id).callFrame;
    const where = shortUrl(url);
    const name = `${functionName || '(anonymous)'} ${where ? `${where}:${lineNumber + 1}` : ''}`.trim();
    byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
    const group = where || functionName || '(native)';
    byFile.set(group, (byFile.get(group) ?? 0) + micros);
    totalUs += micros;
    if (callersOf !== undefined && functionName === callersOf) {
      const frames = [];
      for (let at = parents.get(id); at !== undefined && frames.length < CALLER_DEPTH; at = parents.get(at)) {
        frames.push(frame(at));
      }
      const key = frames.join('\n      ← ');
      byPath.set(key, (byPath.get(key) ?? 0) + micros);
    }
  });
}

function table(title, entries) {
  console.log(`\n${title} (of ${(totalUs / 1e6).toFixed(1)} s sampled)`);
  for (const [name, micros] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    const share = ((micros / totalUs) * 100).toFixed(1).padStart(5);
    console.log(`${share}%  ${(micros / 1e3).toFixed(0).padStart(8)} ms  ${name}`);
  }
}

table('self time by function', byFunction);
table('self time by file', byFile);
if (callersOf !== undefined) table(`call paths into ${callersOf}`, byPath);
