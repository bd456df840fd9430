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

/**
 * AuditStore guarantees: create-only appends, intents committed once or discarded, recovery after the deadline,
 * refusal tallies counted atomically, newest-first listing (tallies among the entries) with time bounds, filters and
 * pages.
 */
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

    it("filters by target, keeping an entry's revision, and pages within the target", async () => {
      const org = uniqueOrg();
      const [dev, prod] = [`${org}/app/dev`, `${org}/app/prod`];
      const all = [1, 2, 3, 4, 5].map((n) => entry(org, n * 1_000, { event: 'environment.opened', target: n % 2 === 0 ? prod : dev, revision: n }));
      for (const e of all) await env.storage.audit.append(e);

      const page1 = await env.storage.audit.list({ org, target: dev, limit: 2 });
      const page2 = await env.storage.audit.list({ org, target: dev, limit: 2, continuationToken: page1.continuationToken });

      expect([...page1.entries, ...page2.entries]).toEqual([all[4], all[2], all[0]]);
      expect(page2.continuationToken).toBeUndefined();
      expect((await env.storage.audit.list({ org, target: prod })).entries.map((e) => e.revision)).toEqual([4, 2]);
      expect((await env.storage.audit.list({ org, target: `${org}/app/none` })).entries).toEqual([]);
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

    it('counts refusals into one tally per id: created from the first, then count and last seen only', async () => {
      const org = uniqueOrg();
      const first = entry(org, 60_000, { event: 'auth.failed', actor: 'anonymous', sourceIp: '192.0.2.7', route: 'GET /api/user', description: 'first' });
      const later = { ...first, time: 60_500, description: 'second', requestId: 'r2' };

      await env.storage.audit.tally(first);
      const once = await env.storage.audit.list({ org });
      await env.storage.audit.tally(later);
      await env.storage.audit.tally({ ...first, time: 60_200, description: 'third' });

      expect(once).toEqual({ entries: [{ ...first, count: 1, lastSeen: 60_000 }] });
      // The third arrived last but happened before the second: last seen stays the latest refusal.
      expect(await env.storage.audit.list({ org })).toEqual({ entries: [{ ...first, count: 3, lastSeen: 60_500 }] });
    });

    it('counts concurrent tallies of one id into one tally, none lost', async () => {
      const org = uniqueOrg();
      const refusal = entry(org, 120_000, { event: 'auth.failed', actor: 'anonymous', sourceIp: '192.0.2.8' });

      await Promise.all(Array.from({ length: 12 }, (_, i) => env.storage.audit.tally({ ...refusal, time: 120_000 + i })));

      const { entries } = await env.storage.audit.list({ org });
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({ id: refusal.id, count: 12, lastSeen: 120_011 });
    });

    it('lists tallies among the entries by id, with the same time bounds, filters and pages', async () => {
      const org = uniqueOrg();
      const entries = [1, 3, 5].map((n) => entry(org, n * 1_000));
      const tallies = [2, 4, 6].map((n) => entry(org, n * 1_000, { event: 'auth.failed', actor: 'anonymous' }));
      for (const e of entries) await env.storage.audit.append(e);
      for (const t of tallies) await env.storage.audit.tally(t);
      const counted = tallies.map((t) => ({ ...t, count: 1, lastSeen: t.time }));

      const page1 = await env.storage.audit.list({ org, limit: 4 });
      const page2 = await env.storage.audit.list({ org, limit: 4, continuationToken: page1.continuationToken });

      expect(page1.entries).toEqual([counted[2], entries[2], counted[1], entries[1]]);
      expect(page2).toEqual({ entries: [counted[0], entries[0]] });
      expect((await env.storage.audit.list({ org, event: 'auth.failed', since: 3_000 })).entries).toEqual([counted[2], counted[1]]);
      expect((await env.storage.audit.list({ org, actor: 'alice', before: 5_000 })).entries).toEqual([entries[1], entries[0]]);
      const exact = await env.storage.audit.list({ org, limit: 6 });
      expect(exact.entries).toHaveLength(6);
      expect(exact.continuationToken).toBeUndefined();
    });

    it('keeps the site log apart', async () => {
      const site = entry('', 5_000, { event: 'auth.failed', actor: 'anonymous' });
      await env.storage.audit.append(site);

      expect((await env.storage.audit.list({ org: '', since: 5_000, before: 5_001 })).entries).toContainEqual(site);
    });
  });
}
