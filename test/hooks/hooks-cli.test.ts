/**
 * `stackyard hook …` through the bundled CLI, against `stackyard serve` and on `login --local`, with the receiver
 * running as its own process; and a gate refusing a real `stackyard up` before it takes the lease. Needs
 * `npm run build`.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../shared/core/hooks/signing.js';
import { ok, PulumiWire } from '../api/pulumi-wire.js';
import { startServe, type ServeProcess } from '../api/serve-process.js';
import { CliSandbox, TESTPROV_DIR, removeSandboxes, type CliResult } from '../cli/cli-harness.js';
import { eventually, fastHookEnv, startReceiver, type Receiver, type Received } from './hook-fixtures.js';

const HOOK_SECRET = 'cli-hook-secret-5e0b7d';
const CONFIG_SECRET = 'hunter2-from-config-set';

const program =
  "const pulumi = require('@pulumi/pulumi');\n" +
  'const cfg = new pulumi.Config();\n' +
  "new pulumi.CustomResource('testprov:index:Thing', 'one', { value: 1, password: cfg.requireSecret('dbPassword') });\n";

let receiver: Receiver;

async function receivedAt(path: string, count: number): Promise<Received[]> {
  return eventually(`${count} requests at ${path}`, async () => {
    const matching = (await receiver.received()).filter((request) => request.path === path);
    return matching.length >= count ? matching : undefined;
  });
}

function succeeded(result: CliResult): CliResult {
  expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
  return result;
}

beforeAll(async () => {
  receiver = await startReceiver();
});

afterAll(async () => {
  await receiver?.stop();
  removeSandboxes();
});

describe('stackyard hook against `stackyard serve`', () => {
  let serve: ServeProcess;
  let wire: PulumiWire;
  let sandbox: CliSandbox;
  let project: string;
  const cli = (...args: string[]) => sandbox.run(project, args);

  beforeAll(async () => {
    serve = await startServe({ storage: 'local', env: fastHookEnv({ STACKYARD_HOOKS_ALLOW_PRIVATE: 'true' }) });
    wire = new PulumiWire(serve.url);
    sandbox = new CliSandbox({ STACKYARD_BACKEND_URL: serve.url, STACKYARD_ACCESS_TOKEN: serve.adminToken });
    // The test provider keeps its resources in this folder.
    sandbox.env.TESTPROV_WORLD = join(sandbox.root, 'world');
    mkdirSync(sandbox.env.TESTPROV_WORLD);
    project = sandbox.project('app', `name: app\nruntime: nodejs\nplugins:\n  providers:\n    - name: testprov\n      path: ${TESTPROV_DIR}\n`, {
      'index.js': program,
    });
    succeeded(await cli('stack', 'init', 'dev'));
    succeeded(await cli('config', 'set', '--secret', 'dbPassword', CONFIG_SECRET));
  });

  afterAll(async () => {
    wire?.close();
    await serve?.stop();
  });

  it('adds hooks to the selected stack and to an organization, with the secret from STACKYARD_HOOK_SECRET', async () => {
    const added = await sandbox.run(project, ['hook', 'add', 'ci', '--url', `${receiver.url}/ok/cli-ci`, '--events', 'update_succeeded, update_failed'], {
      env: { STACKYARD_HOOK_SECRET: HOOK_SECRET },
    });
    const orgWide = await cli('hook', 'add', 'audit', '--org', 'admin', '--url', `${receiver.url}/ok/cli-audit`, '--events', 'stack_created');
    const listed = await cli('hook', 'ls', '--json');
    const table = await cli('hook', 'ls');

    expect(succeeded(added).stdout).toBe(
      `Added hook 'ci' to stack 'admin/app/dev': ${receiver.url}/ok/cli-ci (signed), events: update_succeeded, update_failed\n`,
    );
    expect(succeeded(orgWide).stdout).toBe(`Added hook 'audit' to organization 'admin': ${receiver.url}/ok/cli-audit, events: stack_created\n`);
    expect(JSON.parse(succeeded(listed).stdout)).toMatchObject([
      { name: 'audit', org: 'admin', events: ['stack_created'], destination: { kind: 'https', hasSecret: false } },
      { name: 'ci', stack: 'admin/app/dev', events: ['update_succeeded', 'update_failed'], destination: { kind: 'https', hasSecret: true } },
    ]);
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+SCOPE\s+DESTINATION\s+EVENTS\s+GATE\s+ACTIVE$/);
    expect(table.stdout).toMatch(/ci\s+admin\/app\/dev\s+\S+\/ok\/cli-ci \(signed\)\s+update_succeeded,update_failed\s+no\s+yes/);
    expect(listed.stdout + table.stdout + added.stdout).not.toContain(HOOK_SECRET);
  });

  it('pings a hook: the receiver gets a signed ping, and the delivery is listed', async () => {
    const ping = succeeded(await cli('hook', 'ping', 'ci'));
    const [request] = await receivedAt('/ok/cli-ci', 1);
    const deliveries = JSON.parse(succeeded(await cli('hook', 'deliveries', 'ci', '--json')).stdout);

    expect(ping.stdout).toMatch(/^Pinged hook 'ci': 200 in \d+ ms \(delivery (\S+)\)\n$/);
    expect(request!.headers['pulumi-webhook-kind']).toBe('ping');
    expect(verifySignature(HOOK_SECRET, request!.body, request!.headers['pulumi-webhook-signature'] as string)).toBe(true);
    expect(deliveries).toMatchObject([{ id: request!.headers['pulumi-webhook-id'], event: 'ping', status: 'succeeded', attempts: [{ ok: true, responseCode: 200 }] }]);
  });

  it('shows a failed ping as an error, and redelivers it once the receiver recovers', async () => {
    succeeded(await cli('hook', 'add', 'flaky', '--url', `${receiver.url}/flaky/1/cli-flaky`));

    const ping = await cli('hook', 'ping', 'flaky');
    const listed = succeeded(await cli('hook', 'deliveries', 'flaky'));
    const [dead] = JSON.parse(succeeded(await cli('hook', 'deliveries', 'flaky', '--json')).stdout) as { id: string }[];
    const redelivered = await cli('hook', 'redeliver', 'flaky', dead!.id);
    const after = JSON.parse(succeeded(await cli('hook', 'deliveries', 'flaky', '--json')).stdout) as { id: string; status: string; redeliveryOf?: string }[];

    expect(ping.status).toBe(1);
    expect(ping.stderr).toMatch(/^error: the ping of hook 'flaky' failed: 503 answered 503\n {2}Check the receiver/);
    expect(listed.stdout).toMatch(new RegExp(`${dead!.id}\\s+ping\\s+dead \\(no more retries\\)\\s+1\\s+503 answered 503`));
    expect(succeeded(redelivered).stdout).toMatch(new RegExp(`^Redelivered ${dead!.id} as (\\S+): 200 in \\d+ ms\\n$`));
    expect(after.map((d) => d.status)).toEqual(['succeeded', 'dead']);
    expect(after[0]!.redeliveryOf).toBe(dead!.id);
  });

  it('explains usage mistakes and passes on the service\'s validation messages', async () => {
    const noDestination = await cli('hook', 'add', 'x');
    const bothScopes = await cli('hook', 'add', 'x', '--url', 'https://ci.example.com/x', '--org', 'admin', '--stack', 'dev');
    const badName = await cli('hook', 'add', 'bad!name', '--url', 'https://ci.example.com/x');
    const unknownEvent = await cli('hook', 'add', 'x', '--url', 'https://ci.example.com/x', '--events', 'update_done');
    const missing = await cli('hook', 'rm', 'missing');

    expect(noDestination.stderr).toBe('error: give exactly one destination\n  Use --url https://… [--secret S] or --lambda arn:aws:lambda:…\n');
    expect(bothScopes.stderr).toMatch(/^error: give --org or --stack, not both\n/);
    expect(badName.stderr).toMatch(/^error: \[400\] Invalid hook name 'bad!name'/);
    expect(unknownEvent.stderr).toMatch(/^error: \[400\] Unknown hook event 'update_done'/);
    expect(missing.stderr).toMatch(/^error: \[404\] Hook 'missing' not found/);
    expect([noDestination, bothScopes, badName, unknownEvent, missing].map((r) => r.status)).toEqual([1, 1, 1, 1, 1]);
  });

  it('refuses `stackyard up` when a gate denies it, before the lease, and runs the next `up` once the gate allows', async () => {
    succeeded(await cli('hook', 'add', 'freeze', '--url', `${receiver.url}/gate/cli-freeze`, '--gate'));
    await receiver.setGate('cli-freeze', { allow: false, message: 'the change window is closed' });

    const refused = await cli('up', '--yes', '--skip-preview');
    const stack = ok(await wire.call('GET', '/api/stacks/admin/app/dev', { auth: { token: serve.adminToken } }));
    const exported = JSON.parse(succeeded(await cli('stack', 'export')).stdout) as { deployment: { resources?: unknown[] } };
    await receiver.setGate('cli-freeze', { allow: true });
    const allowed = await cli('up', '--yes', '--skip-preview');

    expect(refused.status).toBe(1);
    expect(refused.stderr).toBe('error: Gate freeze denied the update: the change window is closed\n');
    expect(stack.activeUpdate).toBe('');
    expect(exported.deployment.resources ?? []).toEqual([]);
    expect(allowed.status, allowed.stderr).toBe(0);
    expect(await receivedAt('/gate/cli-freeze', 2)).toHaveLength(2);
  });

  it('never sends the stack\'s secret config, or the hook secret, to a receiver', async () => {
    const [succeededEvent] = (await receivedAt('/ok/cli-ci', 2)).filter((r) => JSON.parse(r.body).event === 'update_succeeded');
    const ciphertext = /secure: (\S+)/.exec(readFileSync(join(project, 'Pulumi.dev.yaml'), 'utf8'))![1]!;
    const everything = (await receiver.received()).map((r) => `${r.path} ${JSON.stringify(r.headers)} ${r.body}`);

    expect(JSON.parse(succeededEvent!.body)).toMatchObject({ event: 'update_succeeded', stackName: 'dev', resourceChanges: { create: 2 } });
    for (const text of everything) {
      expect(text).not.toContain(CONFIG_SECRET);
      expect(text).not.toContain(ciphertext);
      expect(text).not.toContain(HOOK_SECRET);
    }
  });

  it('removes hooks', async () => {
    const removed = await cli('hook', 'rm', 'audit', '--org', 'admin');
    const listed = JSON.parse(succeeded(await cli('hook', 'ls', '--org', 'admin', '--json')).stdout);

    expect(succeeded(removed).stdout).toBe("Removed hook 'audit' from organization 'admin'\n");
    expect(listed).toEqual([]);
  });
});

describe('stackyard hook on `login --local`', () => {
  const sandbox = new CliSandbox({ STACKYARD_HOOKS_ALLOW_PRIVATE: 'true' });
  const cli = (...args: string[]) => sandbox.run(sandbox.root, args);

  beforeAll(async () => {
    succeeded(await cli('login', '--local'));
  });

  it('adds, pings, lists deliveries of and removes an organization hook, in-process', async () => {
    const added = await cli('hook', 'add', 'local-ci', '--org', 'organization', '--url', `${receiver.url}/ok/local`, '--secret', HOOK_SECRET);
    const ping = await cli('hook', 'ping', 'local-ci', '--org', 'organization');
    const [request] = await receivedAt('/ok/local', 1);
    const deliveries = JSON.parse(succeeded(await cli('hook', 'deliveries', 'local-ci', '--org', 'organization', '--json')).stdout);
    const removed = await cli('hook', 'rm', 'local-ci', '--org', 'organization');
    const listed = await cli('hook', 'ls', '--org', 'organization');

    expect(succeeded(added).stdout).toBe(`Added hook 'local-ci' to organization 'organization': ${receiver.url}/ok/local (signed), events: all\n`);
    expect(succeeded(ping).stdout).toMatch(/^Pinged hook 'local-ci': 200 in \d+ ms/);
    expect(verifySignature(HOOK_SECRET, request!.body, request!.headers['pulumi-webhook-signature'] as string)).toBe(true);
    expect(deliveries).toMatchObject([{ event: 'ping', status: 'succeeded', id: request!.headers['pulumi-webhook-id'] }]);
    expect(succeeded(removed).stdout).toBe("Removed hook 'local-ci' from organization 'organization'\n");
    expect(listed.stdout).toBe("No hooks see organization 'organization'; add one with `stackyard hook add`\n");
  });

  it('delivers each update\'s events from the command itself, so the outbox does not grow without a serve', async () => {
    // Arrange: a stack with a hook for its updates, and no dispatcher process anywhere.
    const project = sandbox.project('outbox', 'name: outbox\nruntime: nodejs\n', { 'index.js': '' });
    const inProject = (...args: string[]) => sandbox.run(project, args);
    succeeded(await inProject('stack', 'init', 'dev'));
    succeeded(await inProject('hook', 'add', 'updates', '--url', `${receiver.url}/ok/local-updates`, '--events', 'update_succeeded'));
    const outbox = join(sandbox.home, 'local', 'hooks', 'outbox', 'ready');

    // Act: three updates, the outbox looked at after each.
    const backlog: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      succeeded(await inProject('up', '--yes', '--skip-preview'));
      backlog.push(existsSync(outbox) ? readdirSync(outbox).length : 0);
    }
    const delivered = await receivedAt('/ok/local-updates', 3);

    // Assess
    expect(backlog).toEqual([0, 0, 0]);
    expect(delivered.map((request) => (JSON.parse(request.body) as { version: number }).version)).toEqual([1, 2, 3]);
  });

  it('asks for a scope outside a project', async () => {
    const result = await cli('hook', 'ls');

    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^error: which hooks\? there is no selected stack here\n {2}Pass --org <org>/);
  });
});
