/** Bundles the web console (console/) into dist/console: index.html plus content-hashed JS and CSS under assets/. */
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';

/** Builds the console under `root` and returns the names of the files the first page load fetches. */
export async function buildConsole(root) {
  const outdir = `${root}dist/console`;
  rmSync(outdir, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: { app: 'console/src/main.tsx' },
    outdir: `${outdir}/assets`,
    entryNames: '[name]-[hash]',
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022', 'chrome110', 'firefox110', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    sourcemap: false,
    metafile: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((path) => basename(path));
  const js = outputs.find((name) => name.endsWith('.js'));
  const css = outputs.find((name) => name.endsWith('.css'));
  if (!js || !css) throw new Error(`console build produced ${outputs.join(', ')}, expected one .js and one .css`);
  const html = readFileSync(`${root}console/index.html`, 'utf8').replace('%JS%', js).replace('%CSS%', css);
  mkdirSync(outdir, { recursive: true });
  writeFileSync(`${outdir}/index.html`, html);
  return { js: `assets/${js}`, css: `assets/${css}` };
}
