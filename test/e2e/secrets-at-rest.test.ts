/**
 * A secret used in config and in outputs never appears in plaintext (nor base64-encoded) anywhere Stackyard writes:
 * the serve data folder (every file, gzip objects unpacked: checkpoints, events, history), serve's own output, and
 * the CLI's output without --show-secrets.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, CliSandbox, REPO, TESTPROV_DIR, removeSandboxes, until } from '../cli/cli-harness.js';
import { freePort } from '../support/processes.js';
import { E2eProject, SHORT_LEASE } from './e2e-harness.js';

const PASSWORD = 'hunter2-never-stored';
const SECRET_OUTPUT = 's3cr3t-out';
const FORBIDDEN = [PASSWORD, SECRET_OUTPUT, Buffer.from(PASSWORD).toString('base64'), Buffer.from(JSON.stringify(SECRET_OUTPUT)).toString('base64')];

/**
 * Every file under `dir`, gzip ones unpacked, as text. `serve` keeps running while the test reads, and it writes lock
 * records and objects through temp files under `tmp/` that are linked or renamed into place and then removed, so a
 * file listed can be gone a moment later: such a file is skipped, and what it held is read where it was published.
 */
function filesUnder(dir: string): { path: string; text: string }[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .flatMap((entry) => {
      const path = join(entry.parentPath, entry.name);
      const bytes = readIfPresent(path);
      if (!bytes) return [];
      const unpacked = bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes;
      return [{ path, text: unpacked.toString('utf8') }];
    });
}

function readIfPresent(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function expectNoSecret(where: string, text: string): void {
  for (const secret of FORBIDDEN) expect(text.includes(secret), `${where} contains '${secret}'`).toBe(false);
}

describe('secrets through `stackyard serve` on local storage', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'stackyard-e2e-data-'));
  const adminToken = `admin-${Math.random().toString(36).slice(2)}`;
  const sandbox = new CliSandbox();
  let serve: ChildProcess;
  let serveOutput = '';
  let project: E2eProject;
  const cliOutput: string[] = [];

  const run = async (...args: string[]) => {
    const result = await project.cli(...args);
    cliOutput.push(result.stdout, result.stderr);
    return result;
  };

  beforeAll(async () => {
    const port = await freePort();
    serve = spawn(process.execPath, [CLI, 'serve', '--port', String(port), '--data-dir', dataDir], {
      env: { ...sandbox.env, STACKYARD_STORAGE: 'local', STACKYARD_ADMIN_TOKEN: adminToken },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    serve.stdout!.setEncoding('utf8').on('data', (d: string) => (serveOutput += d));
    serve.stderr!.setEncoding('utf8').on('data', (d: string) => (serveOutput += d));
    const url = `http://127.0.0.1:${port}`;
    await until('serve to listen', async () => (serveOutput.includes('Log in with:') ? true : undefined));
    await sandbox.run(sandbox.root, ['login', url], { env: { STACKYARD_ACCESS_TOKEN: adminToken } });
    const dir = sandbox.project('scenario', `name: scenario\nruntime: nodejs\nplugins:\n  providers:\n    - name: testprov\n      path: ${TESTPROV_DIR}\n`, {
      'index.js': readFileSync(join(REPO, 'test/fixtures/programs/scenario/index.js'), 'utf8'),
    });
    project = new E2eProject(sandbox, dir, SHORT_LEASE);
  });

  afterAll(async () => {
    if (serve && serve.exitCode === null) {
      const exited = new Promise((resolve) => serve.once('exit', resolve));
      serve.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
    removeSandboxes();
  });

  it('stores, logs and prints the secret only encrypted or masked', async () => {
    await run('stack', 'init', 'dev');
    await run('config', 'set', '--secret', 'password', PASSWORD);
    const first = await run('up', '--yes', '--diff');
    await run('config', 'set', 'step', '2');
    const second = await run('up', '--yes', '--diff');
    await run('preview', '--diff', '--json');
    const outputs = await run('stack', 'output', '--json');
    await run('stack', 'export');
    await run('stack', 'history', '--json');
    await run('config');
    const revealed = await project.cli('stack', 'output', '--json', '--show-secrets');

    expect(first.status, first.stderr).toBe(0);
    expect(second.status, second.stderr).toBe(0);
    expect(JSON.parse(outputs.stdout)).toMatchObject({ secretOut: '[secret]' });
    // The secret is really there, only sealed.
    expect(JSON.parse(revealed.stdout)).toMatchObject({ secretOut: SECRET_OUTPUT });
    const files = filesUnder(dataDir);
    expect(files.some((f) => f.text.includes('summaryEvent'))).toBe(true);
    expect(files.some((f) => f.text.includes('"ciphertext"') && f.text.includes('testprov:index:Thing::b'))).toBe(true);
    for (const file of files) expectNoSecret(file.path, file.text);
    expectNoSecret('serve output', serveOutput);
    cliOutput.forEach((text, i) => expectNoSecret(`CLI output #${i}`, text));
  });
});
