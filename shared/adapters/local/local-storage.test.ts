import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError, InvalidInputError, NotFoundError, OidcPolicyLimitError, TooLargeError } from '../../core/errors.js';
import { MAX_OBJECT_BYTES, type Storage } from '../../ports/index.js';
import { createLocalStorage } from './index.js';

let dataDir: string;
let storage: Storage;

beforeEach(async () => {
  dataDir = await fs.mkdtemp(join(tmpdir(), 'stackyard-local-'));
  storage = await createLocalStorage({ dataDir });
});

afterEach(async () => {
  await storage.close();
  await fs.rm(dataDir, { recursive: true, force: true });
});

/** Every file under the data folder except temp files and locks, with its content, to prove nothing changed. */
async function snapshot(): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const entry of await fs.readdir(dataDir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    result[path] = (await fs.readFile(path)).toString('base64');
  }
  return result;
}

function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

describe('local storage data folder', () => {
  it('writes layout.json and a 0600 master key', async () => {
    await storage.keys.generateDataKey({ stackId: 'a' });
    expect(JSON.parse(await fs.readFile(join(dataDir, 'layout.json'), 'utf8'))).toEqual({ version: 1 });
    const stat = await fs.stat(join(dataDir, 'master.key'));
    expect(stat.mode & 0o777).toBe(0o600);
    expect(stat.size).toBe(32);
  });

  it('refuses a data folder with another layout version', async () => {
    await fs.writeFile(join(dataDir, 'layout.json'), JSON.stringify({ version: 99 }));
    await expect(createLocalStorage({ dataDir })).rejects.toThrow(/layout version 99/);
  });

  it('concurrent instances converge on one master key', async () => {
    const other = await fs.mkdtemp(join(tmpdir(), 'stackyard-local-'));
    const instances = await Promise.all(Array.from({ length: 8 }, () => createLocalStorage({ dataDir: other })));
    const keys = await Promise.all(instances.map((s) => s.keys.generateDataKey({ stackId: 'x' })));
    for (const s of instances) {
      for (const key of keys) {
        expect(Buffer.from(await s.keys.decryptDataKey(key.ciphertext, { stackId: 'x' }))).toEqual(
          Buffer.from(key.plaintext),
        );
      }
    }
    await fs.rm(other, { recursive: true, force: true });
  });

  it('keeps the OIDC policy cap across instances on one folder (the file lock, not one process\'s queue)', async () => {
    const instances = await Promise.all(Array.from({ length: 6 }, () => createLocalStorage({ dataDir })));
    const policy = (i: number) => ({
      org: 'acme',
      id: `policy-${i}`,
      issuer: 'https://gitlab.com',
      audiences: ['urn:pulumi:org:acme'],
      claims: { sub: `project_path:acme/p${i}:*` },
      tokenKind: 'organization' as const,
      maxLifetimeSeconds: 3600,
      description: '',
      createdAt: i,
      createdBy: 'alice',
    });
    await storage.identity.createOidcPolicy(policy(0), 3);

    const results = await Promise.allSettled(instances.map((s, i) => s.identity.createOidcPolicy(policy(i + 1), 3)));

    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    expect(results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason)).toEqual(
      Array.from({ length: 4 }, () => new OidcPolicyLimitError(3)),
    );
    expect(await storage.identity.listOidcPolicies('acme')).toHaveLength(3);
  });

  it('removes expired tokens, and id files left naming no token, when tokens are listed or the owner gets one', async () => {
    let clock = 1_000;
    const timed = await createLocalStorage({ dataDir, now: () => clock });
    const token = (id: string, expiresAt?: number) => ({
      id,
      tokenHash: Buffer.from(id.padEnd(32, '-')).toString('hex'),
      login: 'ci',
      description: id,
      createdAt: 1,
      ...(expiresAt !== undefined ? { expiresAt } : {}),
    });
    const files = async () => (await fs.readdir(join(dataDir, 'identity'), { recursive: true })).filter((f) => f.endsWith('.json')).sort();
    await timed.identity.putToken(token('lasting'));
    await timed.identity.putToken(token('expiring', 2_000));
    // What a crash between the two removals of a revoke leaves: an id file whose token is gone.
    await fs.writeFile(join(dataDir, 'identity', 'token-ids', 'ci', 'crashed.json'), JSON.stringify({ tokenHash: 'f'.repeat(64) }));
    const before = await files();

    clock = 2_000;
    const listed = await timed.identity.listTokens('ci');
    const afterListing = await files();
    await timed.identity.putToken(token('short', 2_500));
    clock = 2_500;
    await timed.identity.putToken(token('next'));
    const afterPut = await files();

    const hashFile = (id: string) => join('tokens', `${token(id).tokenHash}.json`);
    const idFile = (id: string) => join('token-ids', 'ci', `${id}.json`);
    expect(before).toEqual([hashFile('expiring'), hashFile('lasting'), idFile('crashed'), idFile('expiring'), idFile('lasting')].sort());
    expect(listed.map((t) => t.id)).toEqual(['lasting']);
    expect(afterListing).toEqual([hashFile('lasting'), idFile('lasting')].sort());
    expect(afterPut).toEqual([hashFile('lasting'), hashFile('next'), idFile('lasting'), idFile('next')].sort());
  });

  it('breaks a lock left by a dead process and one that expired, but waits for a live one', async () => {
    const stackId = randomUUID();
    const lockPath = join(dataDir, 'locks', `lease-${stackId}.lock`);
    const request = { stackId, updateId: randomUUID(), holder: 'a', durationMs: 60_000 };
    await fs.writeFile(lockPath, JSON.stringify({ pid: deadPid(), expiresAt: Date.now() + 60_000, nonce: 'dead' }));
    await storage.leases.acquire(request);

    const other = randomUUID();
    const otherLock = join(dataDir, 'locks', `lease-${other}.lock`);
    await fs.writeFile(otherLock, JSON.stringify({ pid: process.pid, expiresAt: Date.now() - 1, nonce: 'old' }));
    await storage.leases.acquire({ ...request, stackId: other });

    const torn = randomUUID();
    const tornLock = join(dataDir, 'locks', `lease-${torn}.lock`);
    await fs.writeFile(tornLock, '');
    const old = new Date(Date.now() - 120_000);
    await fs.utimes(tornLock, old, old);
    await storage.leases.acquire({ ...request, stackId: torn });

    const live = randomUUID();
    const liveLock = join(dataDir, 'locks', `lease-${live}.lock`);
    await fs.writeFile(liveLock, JSON.stringify({ pid: process.pid, expiresAt: Date.now() + 60_000, nonce: 'live' }));
    let done = false;
    const waiting = storage.leases.acquire({ ...request, stackId: live }).then(() => (done = true));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(done).toBe(false);
    await fs.unlink(liveLock);
    await waiting;
    expect(done).toBe(true);
    expect((await fs.readdir(join(dataDir, 'locks'))).filter((f) => f.endsWith('.lock'))).toEqual([]);
  });

  it('bad input at every port gives a typed error and changes nothing', async () => {
    const stack = await storage.stacks.create({
      id: randomUUID(),
      org: 'acme',
      project: 'p',
      stack: 'dev',
      tags: {},
      createdAt: 1,
    });
    await storage.checkpoints.put({ stackId: stack.id, name: 'cp/1' }, Buffer.from('one'));
    await storage.keys.generateDataKey({ stackId: stack.id });
    const before = await snapshot();

    const attempts: Array<[() => Promise<unknown>, new (...args: never[]) => Error]> = [
      [
        () => storage.checkpoints.put({ stackId: stack.id, name: '../../escape' }, Buffer.from('x')),
        InvalidInputError,
      ],
      [() => storage.checkpoints.put({ stackId: '..', name: 'x' }, Buffer.from('x')), InvalidInputError],
      [
        () => storage.checkpoints.put({ stackId: stack.id, name: 'big' }, Buffer.alloc(MAX_OBJECT_BYTES + 1)),
        TooLargeError,
      ],
      [() => storage.checkpoints.put({ stackId: stack.id, name: 'cp/1' }, Buffer.from('two')), ConflictError],
      [() => storage.stacks.create({ ...stack, id: randomUUID(), stack: '../x' }), InvalidInputError],
      [() => storage.stacks.create({ ...stack, id: '../../x', stack: 'y' }), InvalidInputError],
      [() => storage.stacks.update(stack.id, 0, { version: 5 }), ConflictError],
      [() => storage.stacks.update(randomUUID(), 1, { version: 5 }), NotFoundError],
      [() => storage.stacks.update(stack.id, 1, { tags: { 'bad tag!': 'v' } }), InvalidInputError],
      [() => storage.updates.get(stack.id, '../x'), InvalidInputError],
      [() => storage.updates.update(stack.id, randomUUID(), 1, {}), NotFoundError],
      [
        () => storage.leases.acquire({ stackId: '../x', updateId: 'u', holder: 'h', durationMs: 1 }),
        InvalidInputError,
      ],
      [() => storage.leases.validate({ stackId: '/abs', updateId: 'u', token: 't' }), InvalidInputError],
      [() => storage.keys.decryptDataKey(new Uint8Array(3), { stackId: stack.id }), InvalidInputError],
      [
        () => storage.identity.createUser({ login: '../root', name: 'x', admin: true, createdAt: 1 }),
        InvalidInputError,
      ],
      [() => storage.identity.getOrg('a/b'), InvalidInputError],
      [
        () => storage.identity.putToken({ id: 'i', tokenHash: 'nothex', login: 'u', description: '', createdAt: 1 }),
        InvalidInputError,
      ],
    ];
    for (const [attempt, type] of attempts) {
      await expect(attempt()).rejects.toBeInstanceOf(type);
    }
    const after = await snapshot();
    const ignoreLocks = (s: Record<string, string>) =>
      Object.fromEntries(Object.entries(s).filter(([path]) => !path.includes(`${dataDir}/locks/`)));
    expect(ignoreLocks(after)).toEqual(ignoreLocks(before));
    expect(await fs.readdir(join(dataDir, 'tmp'))).toEqual([]);
  });
});
