/**
 * Approvals of update plans end to end: the bundled CLI (needs `npm run build`) of four users against one
 * `stackyard serve` on local storage. A stack that needs two approvals refuses `up` without a plan; `preview
 * --save-plan` uploads the plan; its author cannot approve it; after two others approve, `up --plan <id>` runs it;
 * a plan made stale by another update is refused, also with --allow-stale-plan (the service made it void); a plan
 * whose program changed after approval is refused by the CLI and, past that check, by the plan itself; and
 * `--wait-for-approval` returns when another user approves during the wait (docs/plans.md).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../api/serve-process.js';
import { CLI, CliSandbox, TESTPROV_DIR, removeSandboxes, until, type CliResult } from './cli-harness.js';

const STACK = 'acme/plans/prod';
const pulumiYaml = `name: plans\nruntime: nodejs\nplugins:\n  providers:\n    - name: testprov\n      path: ${TESTPROV_DIR}\n`;
const program = (value: number) => `const pulumi = require('@pulumi/pulumi');\nnew pulumi.CustomResource('testprov:index:Thing', 'a', { value: ${value} });\n`;

describe('approvals of update plans through stackyard serve', () => {
  let serve: ServeProcess;
  const users: Record<string, CliSandbox> = {};
  let project = '';
  let world = '';
  const cwdOf = (who: string) => (who === 'alice' ? project : users[who]!.root);
  const as = (who: string, ...args: string[]): Promise<CliResult> => users[who]!.run(cwdOf(who), args, { env: { TESTPROV_WORLD: world } });
  const alice = (...args: string[]) => as('alice', ...args);
  const versions = async () => (JSON.parse((await alice('stack', 'history', '--json')).stdout) as unknown[]).length;

  /** `preview --save-plan` with the program at `value`: the id the upload printed. */
  async function uploadPlan(value: number, file: string): Promise<{ id: string; result: CliResult }> {
    writeFileSync(join(project, 'index.js'), program(value));
    const result = await alice('preview', '--save-plan', join(project, file));
    expect(result.status, result.stdout + result.stderr).toBe(0);
    const id = /Plan (\S+) uploaded/.exec(result.stdout)?.[1];
    if (!id) throw new Error(`no plan id in: ${result.stdout}`);
    return { id, result };
  }

  async function approveByOthers(id: string): Promise<void> {
    for (const who of ['bob', 'carol']) {
      const approved = await as(who, 'plan', 'approve', id, '-s', STACK, '-m', `ok from ${who}`);
      expect(approved.status, approved.stderr).toBe(0);
    }
  }

  beforeAll(async () => {
    serve = await startServe({ storage: 'local' });
    users.admin = new CliSandbox({ STACKYARD_ACCESS_TOKEN: serve.adminToken });
    world = join(users.admin.root, 'world');
    mkdirSync(world);
    await users.admin.run(users.admin.root, ['login', serve.url]);
    for (const args of [['org', 'create', 'acme'], ...['alice', 'bob', 'carol'].flatMap((u) => [['user', 'create', u], ['org', 'add-member', 'acme', u]])]) {
      const done = await users.admin.run(users.admin.root, args);
      expect(done.status, `${args.join(' ')}: ${done.stderr}`).toBe(0);
    }
    for (const who of ['alice', 'bob', 'carol']) {
      const token = (await users.admin.run(users.admin.root, ['token', 'create', '--login', who])).stdout.trim();
      users[who] = new CliSandbox({ STACKYARD_ACCESS_TOKEN: token });
      const login = await users[who].run(users[who].root, ['login', serve.url]);
      expect(login.status, login.stderr).toBe(0);
    }
    project = users.alice.project('plans', pulumiYaml, { 'index.js': program(1) });
    for (const args of [['stack', 'init', 'acme/prod'], ['up', '--yes']]) {
      const done = await alice(...args);
      expect(done.status, `${args.join(' ')}: ${done.stdout}${done.stderr}`).toBe(0);
    }
    const gated = await as('admin', 'stack', 'approvals', 'set', '2', '-s', STACK);
    expect(gated.stdout).toContain('needs 2 approvals');
  }, 180_000);

  afterAll(async () => {
    await serve?.stop();
    removeSandboxes();
  });

  it('refuses up without a plan, uploads the plan, refuses its author\'s approval, and runs it once two others approved', async () => {
    writeFileSync(join(project, 'index.js'), program(2));
    const unplanned = await alice('up', '--yes');
    const { id, result: saved } = await uploadPlan(2, 'plan.json');
    const planFile = JSON.parse(readFileSync(join(project, 'plan.json'), 'utf8')) as { stackyard: { planId?: string } };
    const byAuthor = await alice('plan', 'approve', id, '-s', STACK);
    const tooEarly = await alice('up', '--yes', '--plan', id);
    await approveByOthers(id);
    const listed = JSON.parse((await alice('plan', 'ls', '--json')).stdout) as { id: string; status: string; approvals: { user: string }[] }[];
    const applied = await alice('up', '--yes', '--plan', id);
    const after = JSON.parse((await alice('plan', 'ls', '--json')).stdout) as { id: string; status: string }[];
    const audit = JSON.parse((await as('admin', 'audit', 'ls', '--org', 'acme', '--json')).stdout) as { event: string }[];

    expect(unplanned.status).not.toBe(0);
    expect(unplanned.stderr).toMatch(/preview --save-plan/);
    expect(unplanned.stdout).not.toContain('Resources:\n    ~ 1 updated');
    expect(saved.stdout).toContain(`Plan ${id} uploaded: needs 2 approvals (stackyard plan approve ${id})`);
    expect(planFile.stackyard.planId).toBe(id);
    expect(byAuthor.status).toBe(1);
    expect(byAuthor.stderr).toMatch(/\[403\]/);
    expect(tooEarly.status).not.toBe(0);
    expect(tooEarly.stderr).toContain(`plan ${id} is not approved yet (0 of 2 approvals)`);
    expect(listed.find((p) => p.id === id)).toMatchObject({ status: 'approved', approvals: [{ user: 'bob' }, { user: 'carol' }] });
    expect(applied.status, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain('Updating (prod)');
    expect(after.find((p) => p.id === id)?.status).toBe('applied');
    expect(audit.map((e) => e.event)).toEqual(expect.arrayContaining(['plan.uploaded', 'plan.approved', 'plan.refused']));
  }, 240_000);

  it('refuses a plan another update made stale, before anything runs, even with --allow-stale-plan (the service made it void)', async () => {
    const { id: stale } = await uploadPlan(3, 'stale.json');
    const { id: other } = await uploadPlan(3, 'other.json');
    await approveByOthers(stale);
    await approveByOthers(other);
    const otherRan = await alice('up', '--yes', '--plan', other);
    const refused = await alice('up', '--yes', '--plan', stale);
    const versionsBefore = await versions();
    const refusedByService = await alice('up', '--yes', '--plan', stale, '--allow-stale-plan');
    const versionsAfter = await versions();
    const shown = JSON.parse((await alice('plan', 'show', stale, '--json')).stdout) as { status: string; voidReason?: string };

    expect(otherRan.status, otherRan.stdout + otherRan.stderr).toBe(0);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(/the plan was made at version \d+; the stack is at version \d+/);
    expect(refusedByService.status).not.toBe(0);
    // the service voids the plan as the stack moves on, so the CLI refuses it with the service's reason
    expect(refusedByService.stderr).toMatch(new RegExp(`error: plan ${stale} is void: the plan was made at version \\d+; the stack is at version \\d+: run preview --save-plan again\\n`));
    expect(versionsAfter).toBe(versionsBefore);
    expect(shown.status).toBe('void');
  }, 240_000);

  it('refuses an approved plan once the program changed: in the CLI, and with --allow-stale-plan by the plan itself; nothing runs', async () => {
    const { id } = await uploadPlan(5, 'changed.json');
    await approveByOthers(id);
    writeFileSync(join(project, 'index.js'), program(6));
    const versionsBefore = await versions();
    const refused = await alice('up', '--yes', '--plan', id);
    const refusedByPlan = await alice('up', '--yes', '--plan', id, '--allow-stale-plan');
    const versionsAfter = await versions();
    const shown = JSON.parse((await alice('plan', 'show', id, '--json')).stdout) as { status: string; voidReason?: string };

    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('the program changed since the plan was made: run preview --save-plan again');
    // past the digest check, the update's own preview runs under the plan and stops at the changed input, before the
    // service is asked to start it (API tests cover the service voiding a start with another program digest)
    expect(refusedByPlan.status).not.toBe(0);
    expect(refusedByPlan.stdout).toContain('violates plan: properties changed: ~~value[{5}!={6}]');
    expect(refusedByPlan.stdout).toContain('error: preview failed');
    expect(versionsAfter).toBe(versionsBefore);
    expect(shown.status).toBe('approved');
  }, 240_000);

  it('waits with --wait-for-approval until another user approves, then runs the plan', async () => {
    const { id } = await uploadPlan(4, 'wait.json');
    await as('bob', 'plan', 'approve', id, '-s', STACK);
    const child = spawn(process.execPath, [CLI, 'up', '--yes', '--plan', id, '--wait-for-approval=2m'], {
      cwd: project,
      env: { ...users.alice!.env, TESTPROV_WORLD: world },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));

    await until('the CLI to wait', async () => (stdout.includes('Waiting up to') ? true : undefined), 60_000);
    const approved = await as('carol', 'plan', 'approve', id, '-s', STACK);
    const status = await exited;

    expect(approved.status, approved.stderr).toBe(0);
    expect(stdout).toContain(`Waiting up to 2m0s for plan ${id} to be approved (1 of 2 approvals so far; \`stackyard plan approve ${id}\`)`);
    expect(status, stdout + stderr).toBe(0);
    expect(stdout.match(/Waiting up to/g)).toHaveLength(1);
    expect(stdout).toContain('Updating (prod)');
  }, 240_000);
});
