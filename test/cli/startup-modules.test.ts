/**
 * What `stackyard stack ls` loads (needs `npm run build`): the one merged entry file of ours (scripts/build.mjs,
 * scripts/merge-startup-chunks.mjs) and none of the Node modules only other commands need. Each extra ES module costs
 * about 0.4 ms of start-up on Node 20 (docs/performance.md, `cli-startup`).
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

  it('loads one file of ours and neither child_process, zlib nor readline', () => {
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
    expect(builtins.filter((m) => /^NativeModule (child_process|zlib|readline)/.test(m))).toEqual([]);
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
