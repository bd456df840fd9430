/**
 * Compressed JavaScript of the console's first page load ÷ the 150 KB budget: every script index.html loads, gzipped
 * as `serve` and the Lambda send it (zlib's default level), from the build `npm run bench` just made.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { buildConsole } from '../scripts/build-console.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = `${root}dist/console`;
if (!existsSync(`${dir}/index.html`)) await buildConsole(root);

const BUDGET_BYTES = 150 * 1024;
const html = readFileSync(`${dir}/index.html`, 'utf8');
const scripts = [...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*rel="modulepreload"[^>]*\shref)="\/([^"]+\.js)"/g)].map((m) => m[1]);
if (scripts.length === 0) throw new Error('dist/console/index.html loads no script');
const gzipped = scripts.reduce((total, path) => total + gzipSync(readFileSync(`${dir}/${path}`)).length, 0);
process.stdout.write(
  `bench console-bundle: ${(gzipped / BUDGET_BYTES).toFixed(2)}x (${gzipped} gz bytes / 150 KB budget)\n`,
);
