/**
 * A request killed midway leaves no action without its audit entry: `stackyard serve` is SIGKILLed while it deletes
 * many stacks at once, restarted on the same storage, and every stack that is gone has its `stack.deleted` entry
 * (each action's intent is stored before it, and reading the log publishes the intents of dead requests). On local
 * storage and on DynamoDB Local (with s3rver and the KMS stand-in), where intents are published once their deadline
 * (STACKYARD_AUDIT_GRACE_SECONDS, shortened here) has passed. Needs `npm run build`.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startAwsStandIns, type AwsStandIns } from '../support/aws-stand-ins.js';
import { stopChild } from '../support/processes.js';
import { startKillableServe } from './killable-serve.js';
import { ok, PulumiWire } from './pulumi-wire.js';
import { createStack } from './wire-fixtures.js';

const STACKS = 15;
const adminToken = `sy_${randomBytes(24).toString('hex')}`;
const dataDir = mkdtempSync(join(tmpdir(), 'stackyard-audit-kill-'));
const children: ChildProcess[] = [];

const GRACE_SECONDS = 2;
let standIns: AwsStandIns | undefined;

async function storageEnv(mode: 'local' | 'aws'): Promise<NodeJS.ProcessEnv> {
  if (mode === 'local') return { STACKYARD_STORAGE: 'local' };
  standIns ??= await startAwsStandIns();
  return { ...standIns.env, STACKYARD_STORAGE: 'aws', STACKYARD_AUDIT_GRACE_SECONDS: String(GRACE_SECONDS) };
}

async function startServe(mode: 'local' | 'aws'): Promise<{ child: ChildProcess; url: string }> {
  const serve = await startKillableServe(dataDir, { ...(await storageEnv(mode)), STACKYARD_ADMIN_TOKEN: adminToken });
  children.push(serve.child);
  return serve;
}

/**
 * A call right after a restart may still meet the kill's aftermath (a reset keep-alive socket); retried for up to a
 * minute. Locks of the killed server are not a reason: they are broken at once (test/api/serve-lock-kill.test.ts).
 */
async function afterKill<T>(call: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      return await call();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

afterAll(async () => {
  for (const child of children) await stopChild(child);
  rmSync(dataDir, { recursive: true, force: true });
  await standIns?.stop();
});

describe.each(['local', 'aws'] as const)('audit entries survive a killed server (%s storage)', (mode) => {
  it('every stack deleted before a kill has its stack.deleted entry', { timeout: 240_000 }, async () => {
    const admin = { token: adminToken };
    const all: string[] = [];
    // Each round kills the server at another point of a burst of deletes.
    // `first`: as soon as the first delete has answered, so at least one round kills with deletes done and in flight.
    for (const [round, killAfter] of (['first', 5, 15, 30] as const).entries()) {
      // Arrange: a fresh server on the same data, and a batch of stacks.
      const server = await startServe(mode);
      const wire = new PulumiWire(server.url);
      if (round === 0) ok(await wire.call('POST', '/api/orgs', { auth: admin, body: { name: 'acme' } }), 201);
      const names = Array.from({ length: STACKS }, (_, i) => `r${round}-s${i}`);
      // A create cut short by the torn lock may still have been stored: a stack that exists is what this step needs.
      const created = async (stack: string) => (await wire.call('GET', `/api/stacks/acme/proj/${stack}`, { auth: admin })).status === 200;
      for (const stack of names) {
        await afterKill(async () => (await created(stack)) || createStack(wire, adminToken, { org: 'acme', project: 'proj', stack }));
      }
      all.push(...names);

      // Act: delete them all at once, and SIGKILL the server partway.
      const deletes = names.map((stack) => wire.call('DELETE', `/api/stacks/acme/proj/${stack}`, { auth: admin }).catch(() => undefined));
      await (killAfter === 'first' ? Promise.race(deletes) : new Promise((resolve) => setTimeout(resolve, killAfter)));
      server.child.kill('SIGKILL');
      await Promise.all(deletes);
      wire.close();
    }
    const server = await startServe(mode);
    const wire = new PulumiWire(server.url);
    // On DynamoDB a dead request's intent is published once its deadline has passed.
    if (mode === 'aws') await new Promise((resolve) => setTimeout(resolve, GRACE_SECONDS * 1000 + 500));

    // Assess
    const listed = await afterKill(async () => ok(await wire.call('GET', '/api/user/stacks?organization=acme', { auth: admin })));
    const remaining = new Set((listed.stacks as { stackName: string }[]).map((s) => s.stackName));
    const audit = await afterKill(async () => ok(await wire.call('GET', '/api/orgs/acme/auditlogs?eventType=stack.deleted&pageSize=1000', { auth: admin })));
    const recorded = new Set((audit.auditLogEvents as { target: string }[]).map((e) => e.target));
    const gone = all.filter((stack) => !remaining.has(stack));
    expect(gone.length).toBeGreaterThan(0);
    expect(remaining.size).toBeGreaterThan(0);
    expect(gone.filter((stack) => !recorded.has(`acme/proj/${stack}`))).toEqual([]);
    wire.close();
  });
});
