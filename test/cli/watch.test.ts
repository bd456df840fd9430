/**
 * `watch` through the bundled CLI on `login --local`: a short-lived run that deploys once on a change under the
 * watched `--path`, not on one outside it, and ends on Ctrl-C (needs `npm run build`).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, CliSandbox, removeSandboxes, until } from './cli-harness.js';

describe('watch', () => {
  const sandbox = new CliSandbox();
  let project: string;

  beforeAll(async () => {
    project = sandbox.project('watched', 'name: watched\nruntime: nodejs\n', { 'index.js': 'exports.ok = true;\n' });
    mkdirSync(join(project, 'src'));
    await sandbox.run(project, ['login', '--local']);
    await sandbox.run(project, ['stack', 'init', 'dev']);
  });
  afterAll(removeSandboxes);

  it('runs `up` once for a change under --path, none for one outside it, and stops on SIGINT', async () => {
    // Arrange
    const child = spawn(process.execPath, [CLI, 'watch', '--path', 'src', '-c', 'greeting=hi'], { cwd: project, env: sandbox.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await until('watch mode', async () => (out.includes('Watch mode enabled. Make an edit to organization/watched/dev and save to deploy.') ? true : undefined));

    // Act: a change outside the watched path, a quiet moment, then two quick changes inside it
    writeFileSync(join(project, 'outside.js'), '1');
    await new Promise((r) => setTimeout(r, 1000));
    writeFileSync(join(project, 'src', 'a.js'), '1');
    writeFileSync(join(project, 'src', 'b.js'), '2');
    await until('the update', async () => (/Update (complete|failed)/.test(out) ? true : undefined), 60_000);
    child.kill('SIGINT');
    const status = await exited;

    // Assert
    expect(status, out).toBe(0);
    expect(out.match(/Save detected\. Deploying changes\.\.\./g)).toHaveLength(1);
    expect(out).toMatch(/^ {3}\d\d:\d\d:\d\d\.\d{3}\[ {22}\] Update complete; changes made: 1 create\.$/m);
    const history = JSON.parse((await sandbox.run(project, ['stack', 'history', '--json'])).stdout) as { kind: string; config: Record<string, unknown> }[];
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ kind: 'update', config: { 'watched:greeting': { value: 'hi' } } });
  }, 90_000);
});
