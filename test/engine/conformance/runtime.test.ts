/**
 * What the engine gives the processes it runs, and how it stops them, through the bundled CLI (needs
 * `npm run build`): config objects as Pulumi serializes them, a dynamic provider's environment as Pulumi's plugin
 * host sets it, program output lines kept whole, the conflict a second `up` meets while one runs (on `--local` and
 * through `serve`), and no engine process left behind when the CLI is killed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, CliSandbox, REPO, TESTPROV_DIR, removeSandboxes, until } from '../../cli/cli-harness.js';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const WRAPPED_PROVIDER = join(FIXTURES, 'wrapped-provider');
const SLOW_PROGRAM = join(REPO, 'test/engine/fixtures/slow/index.js');

const projectYaml = (name: string, plugin: string, options = '') =>
  `name: ${name}\nruntime:\n  name: nodejs\n${options}plugins:\n  providers:\n    - name: testprov\n      path: ${plugin}\n`;

function calls(log: string): { op: string; urn: string }[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { op: string; urn: string });
}

/** Live processes whose environment names `world` (Linux `/proc`): the CLI's engine children and theirs. */
function processesOf(world: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // zombies are already dead; they wait only for their parent to reap them
      if (/^\d+ \(.*\) Z /.test(status)) continue;
      if (readFileSync(`/proc/${entry}/environ`, 'utf8').includes(`TESTPROV_WORLD=${world}\0`)) pids.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

/** Starts `stackyard …` as a child we can signal. */
function startCli(sandbox: CliSandbox, cwd: string, args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [CLI, ...args], { cwd, env: { ...sandbox.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('exit', (code, signal) => r({ code, signal })));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

/** A folder the test provider keeps its resources in, and the log of its calls. */
function world(sandbox: CliSandbox, name: string) {
  const dir = join(sandbox.root, `world-${name}`);
  mkdirSync(dir);
  const log = join(sandbox.root, `calls-${name}.log`);
  return { dir, log, env: { TESTPROV_WORLD: dir, TESTPROV_LOG: log } };
}

afterAll(removeSandboxes);

describe('what the program and its dynamic provider receive (--local)', () => {
  const sandbox = new CliSandbox();
  let project: string;
  let up: { status: number | null; stdout: string; stderr: string };
  let outputs: { objectText: string; provider: Record<string, string | null> };

  beforeAll(async () => {
    const w = world(sandbox, 'runtime');
    project = sandbox.project('runtime', projectYaml('runtime', TESTPROV_DIR, '  options:\n    typescript: false\n'), {
      'Pulumi.dev.yaml': 'config:\n  runtime:obj:\n    zeta: 1\n    "9": nine\n    alpha:\n      y: "<b>"\n      x: 1\n    "10": ten\n  pulumi-nodejs:dyn: provider-value\n  other:key: not-for-the-provider\n',
    });
    copyFileSync(join(FIXTURES, 'runtime/index.js'), join(project, 'index.js'));
    await sandbox.run(sandbox.root, ['login', '--local']);
    await sandbox.run(project, ['stack', 'init', 'dev']);
    up = await sandbox.run(project, ['up', '--yes', '--skip-preview'], { env: w.env });
    outputs = JSON.parse((await sandbox.run(project, ['stack', 'output', '--json'])).stdout) as typeof outputs;
  });

  it('object config reaches the program as Go marshals it: keys sorted bytewise at every level, <>& escaped', () => {
    expect(up.status, up.stderr).toBe(0);
    expect(outputs.objectText).toBe('{"10":"ten","9":"nine","alpha":{"x":1,"y":"\\u003cb\\u003e"},"zeta":1}');
  });

  it('the dynamic provider gets PULUMI_NODEJS_PROJECT, PULUMI_PROJECT, its own config and runtime options, so pulumi.Config works in it', () => {
    expect(outputs.provider).toEqual({
      project: 'runtime',
      configName: 'runtime',
      envProject: 'runtime',
      envConfig: '{"dyn":"provider-value"}',
      typescriptOption: 'false',
    });
  });

  it('a stdout line left open is never glued to a stderr line', () => {
    // Pulumi's Diagnostics section indents each line under the stack's row; what matters is that each stays whole.
    const lines = up.stdout.split('\n').map((line) => line.trim());
    expect(lines).toContain('an unfinished stdout line');
    expect(lines).toContain('a whole stderr line');
  });
});

describe.each(['local', 'serve'] as const)('a second up while one is mid-step (%s)', (mode) => {
  const sandbox = new CliSandbox();
  const server = new CliSandbox();
  let serve: ChildProcess | undefined;
  let project: string;

  beforeAll(async () => {
    project = sandbox.project('slow', projectYaml('slow', TESTPROV_DIR));
    copyFileSync(SLOW_PROGRAM, join(project, 'index.js'));
    if (mode === 'local') {
      await sandbox.run(sandbox.root, ['login', '--local']);
    } else {
      const adminToken = `sy_${randomBytes(24).toString('hex')}`;
      serve = spawn(process.execPath, [CLI, 'serve', '--port', '0'], { env: { ...server.env, STACKYARD_ADMIN_TOKEN: adminToken }, stdio: ['ignore', 'pipe', 'ignore'] });
      const url = await new Promise<string>((resolve, reject) => {
        let output = '';
        serve!.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
          output += chunk;
          const match = /serves the Pulumi service API at (http:\/\/\S+)/.exec(output);
          if (match) resolve(match[1]!);
        });
        serve!.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${output}`)));
      });
      const login = await sandbox.run(sandbox.root, ['login', url], { env: { STACKYARD_ACCESS_TOKEN: adminToken } });
      expect(login.status, login.stderr).toBe(0);
    }
    await sandbox.run(project, ['stack', 'init', 'dev']);
  });

  afterAll(async () => {
    if (serve && serve.exitCode === null) {
      const exited = new Promise((resolve) => serve!.once('exit', resolve));
      serve.kill('SIGTERM');
      await exited;
    }
  });

  it('is told another update holds the stack, not to repair pending operations', async () => {
    const w = world(sandbox, `conflict-${mode}`);
    await sandbox.run(project, ['config', 'set', 'delay', '6000']);
    const first = startCli(sandbox, project, ['up', '--yes', '--skip-preview'], w.env);
    await until('the slow create to start', async () => (calls(w.log).some((c) => c.op === 'create' && c.urn.endsWith('::slow')) ? true : undefined));

    const second = await sandbox.run(project, ['up', '--yes'], { env: w.env });
    const done = await first.exited;

    expect(second.status).toBe(1);
    expect(second.stderr).toContain('Conflict: Another update is currently in progress');
    expect(`${second.stdout}${second.stderr}`).not.toMatch(/pending operation|state repair/);
    expect(done.code, first.stderr()).toBe(0);
  }, 60_000);
});

describe('no engine process outlives the CLI (--local, a plugin behind a wrapper script that does not exec)', () => {
  const sandbox = new CliSandbox();
  let project: string;

  beforeAll(async () => {
    project = sandbox.project('slow', projectYaml('slow', WRAPPED_PROVIDER));
    copyFileSync(SLOW_PROGRAM, join(project, 'index.js'));
    await sandbox.run(sandbox.root, ['login', '--local']);
  });

  /** A stack of its own for each scenario: a killed run leaves its stack locked and pending. */
  async function stack(name: string, config: string): Promise<void> {
    await sandbox.run(project, ['stack', 'init', name]);
    writeFileSync(join(project, `Pulumi.${name}.yaml`), config);
  }

  it('an update that ends normally leaves no plugin process behind', async () => {
    const w = world(sandbox, 'normal');
    await stack('normal', 'config: {}\n');

    const up = await sandbox.run(project, ['up', '--yes', '--skip-preview'], { env: w.env });

    expect(up.status, up.stderr).toBe(0);
    await until('the plugin processes to be gone', async () => (processesOf(w.dir).length === 0 ? true : undefined), 5_000);
  }, 60_000);

  it('SIGKILL of the CLI mid-step kills the program, the wrapper and the plugin under it', async () => {
    const w = world(sandbox, 'sigkill');
    await stack('sigkill', 'config:\n  slow:hang: true\n');
    const run = startCli(sandbox, project, ['up', '--yes', '--skip-preview'], w.env);
    await until('the hanging create to start', async () => (calls(w.log).some((c) => c.op === 'create' && c.urn.endsWith('::slow')) ? true : undefined));
    expect(processesOf(w.dir).length).toBeGreaterThanOrEqual(3);

    run.child.kill('SIGKILL');
    await run.exited;

    await until('every engine process to be gone', async () => (processesOf(w.dir).length === 0 ? true : undefined), 5_000);
  }, 60_000);

  it('Ctrl-C twice stops at once (130) and kills the program, the wrapper and the plugin under it', async () => {
    const w = world(sandbox, 'sigint');
    await stack('sigint', 'config:\n  slow:hang: true\n');
    const run = startCli(sandbox, project, ['up', '--yes', '--skip-preview'], w.env);
    await until('the hanging create to start', async () => (calls(w.log).some((c) => c.op === 'create' && c.urn.endsWith('::slow')) ? true : undefined));

    run.child.kill('SIGINT');
    await until('the first Ctrl-C to be acknowledged', async () => (run.stderr().includes('^C received') ? true : undefined));
    run.child.kill('SIGINT');
    const { code } = await run.exited;

    expect(code).toBe(130);
    await until('every engine process to be gone', async () => (processesOf(w.dir).length === 0 ? true : undefined), 5_000);
  }, 60_000);
});
