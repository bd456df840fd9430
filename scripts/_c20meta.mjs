import { build } from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';
import { externals } from './externals.mjs';
const root = '/work/wt/c20/';
const out = process.argv[2];
const r = await build({ absWorkingDir: root, entryPoints: { stackyard: 'cli/main.ts' }, outdir: `${out}/dist/cli`, outExtension: { '.js': '.mjs' }, chunkNames: 'chunks/[name]-[hash]', bundle: true, splitting: true, format: 'esm', platform: 'node', target: 'node20', external: Object.keys(externals), metafile: true,
  banner: { js: "import { createRequire as __syCreateRequire } from 'node:module'; const require = __syCreateRequire(import.meta.url);" },
  define: { __STACKYARD_VERSION__: '"0.0.0-meta"' }, logLevel: 'error' });
writeFileSync(`${out}/meta.json`, JSON.stringify(r.metafile));
