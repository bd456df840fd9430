/**
 * What `stackyard stack ls` loads (needs `npm run build`): the one merged entry file of ours (scripts/build.mjs,
 * scripts/merge-startup-chunks.mjs) and none of the Node modules only other commands need. Each extra ES module costs
 * about 0.4 ms of start-up on Node 20, each 100 KB compiled about 3 ms (docs/performance.md, `cli-startup`), so what
 * that file holds and what it loads is pinned here: growing it should be a decision, not an accident.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, CliSandbox, REPO, removeSandboxes } from './cli-harness.js';

/** Preloaded with --import: lists each file module loaded, and the built-in modules when the process exits. */
const TRACER = `
import { register } from 'node:module';
import { writeFileSync } from 'node:fs';
const out = process.env.TRACE_OUT;
register('data:text/javascript,' + encodeURIComponent(\`
  import { appendFileSync } from 'node:fs';
  let out;
  export function initialize(file) { out = file; }
  export async function load(url, context, next) {
    if (url.startsWith('file:')) appendFileSync(out, url + '\\\\n');
    return next(url, context);
  }
\`), import.meta.url, { data: out + '.files' });
process.on('exit', () => writeFileSync(out + '.builtins', process.moduleLoadList.join('\\n')));
`;

describe('stack ls start-up (bundled CLI)', () => {
  let sandbox: CliSandbox;
  let project: string;

  beforeAll(async () => {
    sandbox = new CliSandbox();
    project = sandbox.project('app', 'name: app\nruntime: nodejs\n');
    expect((await sandbox.run(project, ['login', '--local'])).status).toBe(0);
    expect((await sandbox.run(project, ['stack', 'init', 'dev'])).status).toBe(0);
  });

  afterAll(() => removeSandboxes());

  it('loads one file of ours, and none of child_process, crypto, zlib, readline or node:util\'s parseArgs', () => {
    // Arrange
    const tracer = join(sandbox.root, 'tracer.mjs');
    const out = join(sandbox.root, 'trace');
    writeFileSync(tracer, TRACER);
    writeFileSync(`${out}.files`, '');

    // Act
    const result = spawnSync(process.execPath, ['--import', tracer, CLI, 'stack', 'ls'], { cwd: project, env: { ...sandbox.env, TRACE_OUT: out }, encoding: 'utf8' });

    // Assert
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('dev*');
    const ours = readFileSync(`${out}.files`, 'utf8')
      .split('\n')
      .filter((url) => url.startsWith('file:') && fileURLToPath(url).startsWith(join(REPO, 'dist')))
      .map((url) => relative(REPO, fileURLToPath(url)));
    expect(ours).toEqual(['dist/cli/stackyard.mjs']);
    const builtins = readFileSync(`${out}.builtins`, 'utf8').split('\n');
    // crypto: required on first call (scripts/lazy-crypto.mjs); parseArgs: loaded by node:util's ES-module facade,
    // with worker_threads on Node 22 (which this test cannot see: the load hook above runs in a worker)
    expect(builtins.filter((m) => /^NativeModule (child_process|crypto|zlib|readline|internal\/util\/parse_args)/.test(m))).toEqual([]);
  });

  it('runs from a start-up file that is ASCII, under 480 KB, and bundles no package but commander and @noble/hashes', () => {
    // Arrange
    const entry = join(REPO, 'dist', 'cli', 'stackyard.mjs');

    // Act
    const bytes = readFileSync(entry);
    const sources = (JSON.parse(readFileSync(`${entry}.map`, 'utf8')) as { sources: string[] }).sources;

    // Assert: one character outside ASCII makes V8 read the whole file as two-byte text
    expect(bytes.findIndex((byte) => byte > 0x7f)).toBe(-1);
    expect(bytes.length).toBeLessThan(480 * 1024);
    const packages = new Set(sources.flatMap((source) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source)?.[1] ?? []));
    expect([...packages].sort()).toEqual(['@noble/hashes', 'commander']);
  });

  it('shares the entry file\'s modules with a command loaded later (its errors render as user errors)', async () => {
    // Act: `stack select` lives in a chunk loaded on demand; its UserError class must be the entry's
    const result = await sandbox.run(project, ['stack', 'select', 'nope']);

    // Assert
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("error: no stack named 'nope' found");
    expect(result.stderr).not.toContain('bug in stackyard');
  });
});
