/**
 * The console's build: Preact through esbuild's automatic JSX runtime (no Babel), one bundle with
 * hashed names under `assets/`, written beside the compiled server in `dist/console`.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // The preload polyfill is an inline script; the Content-Security-Policy allows none.
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
    chunkSizeWarningLimit: 400,
  },
  logLevel: 'warn',
});
