import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DeploymentV3, UntypedDeployment } from '../../cli/engine/state/deployment.js';
import { runOperation, type OperationBackend, type OperationCommand, type OperationFlags, type OperationOutcome } from '../../cli/engine/operation.js';
import { tsxNodeArgs } from '../support/processes.js';
import { deleteFromWorld } from '../support/testprov-world.js';
import { TESTPROV_DIR } from './engine-harness.js';

const RUNNER = join(import.meta.dirname, 'interrupt-runner.ts');
const PROGRAM = join(import.meta.dirname, 'fixtures/slow');

/** One stack kept in files, as the runner child and the in-process runs below share it. */
function stackFiles() {
  const dir = mkdtempSync(join(tmpdir(), 'stackyard-interrupt-'));
  const world = join(dir, 'world');
  const env = { ...process.env, TESTPROV_WORLD: world, TESTPROV_LOG: join(dir, 'calls.log') };
  writeFileSync(join(dir, 'calls.log'), '');
  mkdirSync(world);
  return { dir, world, env, state: join(dir, 'state.json'), outcome: join(dir, 'outcome.json'), log: join(dir, 'calls.log') };
}

type Files = ReturnType<typeof stackFiles>;

function calls(f: Files): { op: string; urn: string }[] {
  return readFileSync(f.log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { op: string; urn: string });
}

function deployment(f: Files): DeploymentV3 {
  return (JSON.parse(readFileSync(f.state, 'utf8')) as UntypedDeployment).deployment as DeploymentV3;
}

function names(d: DeploymentV3): string[] {
  return ((d.resources ?? []) as { urn: string; type: string }[]).filter((r) => r.type === 'testprov:index:Thing').map((r) => r.urn.split('::').pop()!).sort();
}

async function until(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function startRunner(f: Files, config: Record<string, string>, flags: OperationFlags = {}) {
  const stackConfig = Object.fromEntries(Object.entries(config).map(([k, value]) => [`slow:${k}`, { value, secret: false }]));
  const child = spawn(process.execPath, [...tsxNodeArgs(), RUNNER, f.state, f.outcome, JSON.stringify(stackConfig), JSON.stringify(flags)], { env: f.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('exit', (code, signal) => r({ code, signal })));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

/** Processes whose environment names this test's world folder (Linux `/proc`): leftovers of a hard stop. */
function processesOf(f: Files): number[] {
  if (!existsSync('/proc')) return [];
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'utf8').includes(`TESTPROV_WORLD=${f.world}\0`)) pids.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

/** The same stack, run in this process. */
function fileBackend(f: Files) {
  const completed: OperationOutcome[] = [];
  const backend: OperationBackend = {
    crypter: { encrypt: async (p) => p, decrypt: async (c) => c },
    async begin(_kind, dryRun) {
      return {
        base: existsSync(f.state) ? (JSON.parse(readFileSync(f.state, 'utf8')) as UntypedDeployment) : undefined,
        persister: dryRun ? undefined : { save: async (c) => writeFileSync(f.state, c.text) },
        complete: async (o) => void completed.push(o),
      };
    },
  };
  return { backend, completed };
}

async function runHere(f: Files, command: OperationCommand, flags: OperationFlags = { yes: true, skipPreview: true }) {
  const { backend, completed } = fileBackend(f);
  let out = '';
  const code = await runOperation({
    command,
    flags,
    program: { rootDir: PROGRAM, project: 'slow', stack: 'dev' },
    config: { 'slow:delay': { value: '0', secret: false } },
    projectPlugins: [{ name: 'testprov', path: TESTPROV_DIR }],
    backend,
    write: (t) => (out += t),
    env: f.env,
  });
  return { code, out, completed };
}

describe('interrupting a running update (real child process)', () => {
  it('first Ctrl-C: the create in progress finishes and is saved, nothing new starts, the update completes as cancelled', async () => {
    const f = stackFiles();
    const run = startRunner(f, { delay: '2500' });
    await until('the slow create to start', () => calls(f).some((c) => c.op === 'create' && c.urn.endsWith('::slow')));
    run.child.kill('SIGINT');
    const { code } = await run.exited;

    expect(code).toBe(1);
    expect(run.stderr()).toContain('^C received: finishing the operations in progress');
    expect(run.stdout()).toContain('error: the operation was interrupted (stopped by Ctrl-C); it stopped after the steps in progress');
    expect((JSON.parse(readFileSync(f.outcome, 'utf8')) as OperationOutcome).status).toBe('cancelled');
    const d = deployment(f);
    expect(names(d)).toEqual(['fast', 'slow']);
    expect(d.pending_operations ?? []).toEqual([]);
    expect(calls(f).filter((c) => c.op === 'create').map((c) => c.urn.split('::').pop()).sort()).toEqual(['fast', 'slow']);
    expect(processesOf(f)).toEqual([]);
  }, 60_000);

  it('SIGKILL while steps wait for a --parallel slot: only the creates that reached the provider are pending', async () => {
    const f = stackFiles();
    const run = startRunner(f, { hang: 'true', wide: '6' }, { parallel: 2 });
    const hangingCreates = () => calls(f).filter((c) => c.op === 'create' && !c.urn.endsWith('::fast'));
    await until('both slots to hold a hanging create', () => hangingCreates().length === 2);
    await new Promise((r) => setTimeout(r, 500));
    run.child.kill('SIGKILL');
    await run.exited;

    const pending = deployment(f).pending_operations ?? [];
    const started = hangingCreates().map((c) => c.urn).sort();
    expect(started).toHaveLength(2);
    expect(pending.map((p) => p.type)).toEqual(['creating', 'creating']);
    expect(pending.map((p) => (p.resource as { urn: string }).urn).sort()).toEqual(started);
    await until('the plugin and program processes to be gone', () => processesOf(f).length === 0, 5_000);
  }, 60_000);

  it('second SIGTERM: stops at once (143) leaving the create pending; up then refuses, refresh clears it with a warning, up recovers', async () => {
    const f = stackFiles();
    const run = startRunner(f, { hang: 'true' });
    await until('the hanging create to start', () => calls(f).some((c) => c.op === 'create' && c.urn.endsWith('::slow')));
    run.child.kill('SIGTERM');
    await until('the first SIGTERM to be acknowledged', () => run.stderr().includes('SIGTERM received: finishing'));
    run.child.kill('SIGTERM');
    const { code } = await run.exited;

    expect(code).toBe(143);
    expect(run.stderr()).toContain('SIGTERM received again: stopping at once');
    expect(existsSync(f.outcome)).toBe(false);
    const pending = deployment(f).pending_operations ?? [];
    expect(pending.map((p) => [p.type, (p.resource as { urn: string }).urn.split('::').pop()])).toEqual([['creating', 'slow']]);
    await until('the plugin and program processes to be gone', () => processesOf(f).length === 0, 5_000);

    const callsBefore = calls(f).length;
    for (const command of ['up', 'preview', 'destroy'] as const) {
      const refused = await runHere(f, command, command === 'preview' ? {} : { yes: true, skipPreview: true });
      expect(refused.code).toBe(1);
      expect(refused.out).toContain('error: the stack has 1 pending operation left by an update that was interrupted:');
      expect(refused.out).toMatch(/ {4}creating urn:pulumi:dev::slow::testprov:index:Thing::slow\n/);
      expect(refused.out).toContain('Run `stackyard refresh`');
      expect(refused.out).toContain('`stackyard state repair`');
      expect(refused.completed.map((o) => o.status)).toEqual(['failed']);
    }
    expect(calls(f).length).toBe(callsBefore);

    const refreshed = await runHere(f, 'refresh');
    expect(refreshed.code).toBe(0);
    expect(refreshed.out).toMatch(/warning: the interrupted create of urn:pulumi:dev::slow::testprov:index:Thing::slow \(testprov:index:Thing\) was cleared because it has no id to read back; check by hand/);
    expect(deployment(f).pending_operations ?? []).toEqual([]);
    expect(calls(f).slice(callsBefore).map((c) => `${c.op} ${c.urn.split('::').pop()}`)).toEqual(['read fast']);

    const recovered = await runHere(f, 'up');
    expect(recovered.code).toBe(0);
    expect(names(deployment(f))).toEqual(['after', 'fast', 'slow']);

    // an update of `fast` and a delete of `after` interrupted; the delete had already happened in the cloud
    const d = deployment(f);
    const byName = (n: string) => (d.resources as { urn: string; id: string }[]).find((r) => r.urn.endsWith(`::${n}`))!;
    d.pending_operations = [
      { resource: byName('fast'), type: 'updating' },
      { resource: byName('after'), type: 'deleting' },
    ];
    writeFileSync(f.state, JSON.stringify({ version: 3, deployment: d }));
    deleteFromWorld(f.world, byName('after').id);
    const before = calls(f).length;
    const resolved = await runHere(f, 'refresh');
    expect(resolved.code).toBe(0);
    expect(resolved.out).toContain(`an interrupted update of ${byName('fast').urn} is resolved by reading the resource back from its provider`);
    expect(resolved.out).toContain(`an interrupted delete of ${byName('after').urn} is resolved by reading the resource back`);
    expect(calls(f).slice(before).filter((c) => c.op === 'read').map((c) => c.urn.split('::').pop()).sort()).toEqual(['after', 'fast', 'slow']);
    expect(deployment(f).pending_operations ?? []).toEqual([]);
    expect(names(deployment(f))).toEqual(['fast', 'slow']);
  }, 90_000);
});
