/** Bundles the CLI into dist/cli/stackyard.mjs with lazily loaded chunks, and the web console into dist/console (runs at `npm ci` via `prepare`). */
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildConsole } from './build-console.mjs';
import { externals } from './externals.mjs';
import { lazyCrypto } from './lazy-crypto.mjs';
import { mergeStartupChunks } from './merge-startup-chunks.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = `${root}dist/cli`;
rmSync(outdir, { recursive: true, force: true });

const { version } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));

/** Commander's `node:child_process` is loaded on first use (cli/lazy-child-process.cjs); nothing else's is. */
const lazyChildProcessForCommander = {
  name: 'lazy-child-process-for-commander',
  setup(build) {
    build.onResolve({ filter: /^node:child_process$/ }, (args) =>
      /[\\/]node_modules[\\/]commander[\\/]/.test(args.importer) ? { path: `${root}cli/lazy-child-process.cjs` } : undefined,
    );
  },
};
// CommonJS dependencies inside an ESM bundle still call require().
const BANNER = "import { createRequire as __syCreateRequire } from 'node:module'; const require = __syCreateRequire(import.meta.url);";
const started = Date.now();
const { metafile } = await build({
  absWorkingDir: root,
  entryPoints: { stackyard: 'cli/main.ts' },
  outdir,
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  external: Object.keys(externals),
  banner: { js: BANNER },
  define: { __STACKYARD_VERSION__: JSON.stringify(version) },
  plugins: [lazyChildProcessForCommander, lazyCrypto],
  metafile: true,
  logLevel: 'warning',
});
const mergedChunks = await mergeStartupChunks(root, 'dist/cli/stackyard.mjs', metafile, BANNER);
process.stdout.write(`build: dist/cli/stackyard.mjs (${mergedChunks} start-up chunks merged into it) in ${Date.now() - started} ms\n`);

const consoleStarted = Date.now();
await buildConsole(root);
process.stdout.write(`build: dist/console in ${Date.now() - consoleStarted} ms\n`);
