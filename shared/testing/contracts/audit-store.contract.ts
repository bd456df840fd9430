import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, InvalidInputError } from '../../core/errors.js';
import type { AuditEntry } from '../../ports/index.js';
import { uniqueOrg, type ContractEnv, type ContractSetup } from './setup.js';

function entry(org: string, time: number, extra: Partial<AuditEntry> = {}): AuditEntry {
  return {
    id: `${String(time).padStart(13, '0')}-${randomBytes(8).toString('hex')}`,
    org,
    time,
    event: 'stack.created',
    actor: 'alice',
    description: 'created',
    ...extra,
  };
}

/** AuditStore guarantees: create-only appends, intents committed once or discarded, recovery after the deadline, newest-first listing with time bounds, filters and pages. */
export function auditStoreContract(adapterName: string, setup: ContractSetup): void {
  describe(`AuditStore contract (${adapterName})`, () => {
    let env: ContractEnv;
    beforeAll(async () => {
      env = await setup();
    });
    afterAll(async () => {
      await env.cleanup();
    });

    it('appends once and lists newest first, per organization', async () => {
      const org = uniqueOrg();
      const first = entry(org, 1_000);
      const second = entry(org, 2_000, { event: 'stack.deleted', actor: 'bob', tokenId: 't1', sourceIp: '127.0.0.1' });

      await env.storage.audit.append(first);
      await env.storage.audit.append(second);

      await expect(env.storage.audit.append({ ...first, description: 'rewritten' })).rejects.toBeInstanceOf(ConflictError);
      expect(await env.storage.audit.list({ org })).toEqual({ entries: [second, first] });
      expect(await env.storage.audit.list({ org: uniqueOrg() })).toEqual({ entries: [] });
    });

    it('filters by time, actor and event, and pages with opaque tokens', async () => {
      const org = uniqueOrg();
      const all = [1, 2, 3, 4, 5, 6, 7].map((n) => entry(org, n * 1_000, { actor: n % 2 === 0 ? 'bob' : 'alice', event: n === 7 ? 'auth.failed' : 'stack.created' }));
      for (const e of all) await env.storage.audit.append(e);

      const newest = [...all].reverse();
      const page1 = await env.storage.audit.list({ org, limit: 3 });
      const page2 = await env.storage.audit.list({ org, limit: 3, continuationToken: page1.continuationToken });
      const page3 = await env.storage.audit.list({ org, limit: 3, continuationToken: page2.continuationToken });

      expect([page1.entries, page2.entries, page3.entries]).toEqual([newest.slice(0, 3), newest.slice(3, 6), newest.slice(6)]);
      expect(page3.continuationToken).toBeUndefined();
      expect((await env.storage.audit.list({ org, since: 3_000, before: 6_000 })).entries.map((e) => e.time)).toEqual([5_000, 4_000, 3_000]);
      expect((await env.storage.audit.list({ org, actor: 'bob' })).entries.map((e) => e.time)).toEqual([6_000, 4_000, 2_000]);
      expect((await env.storage.audit.list({ org, event: 'auth.failed' })).entries.map((e) => e.time)).toEqual([7_000]);
      await expect(env.storage.audit.list({ org, continuationToken: 'bogus' })).rejects.toBeInstanceOf(InvalidInputError);
    });

    it('publishes a committed intent once, and nothing for a discarded one', async () => {
      const org = uniqueOrg();
      const done = entry(org, 1_000);
      const refused = entry(org, 2_000);

      await env.storage.audit.begin({ entry: done, deadline: 10_000 });
      await env.storage.audit.begin({ entry: refused, deadline: 10_000 });
      const beforeCommit = await env.storage.audit.list({ org });
      await env.storage.audit.commit(done);
      await env.storage.audit.commit({ ...done, description: 'again' });
      await env.storage.audit.discard(refused);
      await env.storage.audit.recover(org, 1_000_000);

      expect(beforeCommit).toEqual({ entries: [] });
      expect(await env.storage.audit.list({ org })).toEqual({ entries: [done] });
      const twice = entry(org, 4_000);
      await env.storage.audit.begin({ entry: twice, deadline: 10_000 });
      await expect(env.storage.audit.begin({ entry: twice, deadline: 10_000 })).rejects.toBeInstanceOf(ConflictError);
      await env.storage.audit.discard(twice);
    });

    it('recovers an intent left by a dead request once its deadline has passed, as outcome unknown', async () => {
      const org = uniqueOrg();
      const left = entry(org, 3_000);
      await env.storage.audit.begin({ entry: left, deadline: 60_000 });

      await env.storage.audit.recover(org, 59_999);
      const early = await env.storage.audit.list({ org });
      await env.storage.audit.recover(org, 60_001);
      await env.storage.audit.recover(org, 60_002);
      await env.storage.audit.commit(left);

      expect(early).toEqual({ entries: [] });
      expect(await env.storage.audit.list({ org })).toEqual({ entries: [{ ...left, outcome: 'unknown' }] });
    });

    it('keeps the site log apart', async () => {
      const site = entry('', 5_000, { event: 'auth.failed', actor: 'anonymous' });
      await env.storage.audit.append(site);

      expect((await env.storage.audit.list({ org: '', since: 5_000, before: 5_001 })).entries).toContainEqual(site);
    });
  });
}
