import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError } from '../../core/errors.js';
import type { ConsoleSession, LoginCode } from '../../ports/index.js';
import type { ContractEnv, ContractSetup } from './setup.js';

function hash(): string {
  return randomBytes(32).toString('hex');
}

/** ConsoleSessionStore guarantees: create-if-absent, expiry checked on read, idempotent delete, one-time codes. */
export function consoleSessionStoreContract(adapterName: string, setup: ContractSetup): void {
  describe(`ConsoleSessionStore contract (${adapterName})`, () => {
    let env: ContractEnv;
    const session = (ttlMs: number): ConsoleSession => ({
      idHash: hash(),
      tokenHash: hash(),
      login: 'alice',
      createdAt: env.clock.now(),
      expiresAt: env.clock.now() + ttlMs,
    });
    const loginCode = (ttlMs: number): LoginCode => ({
      codeHash: hash(),
      tokenHash: hash(),
      login: 'alice',
      path: '/acme/web/dev',
      createdAt: env.clock.now(),
      expiresAt: env.clock.now() + ttlMs,
    });
    beforeAll(async () => {
      env = await setup();
    });
    afterAll(async () => {
      await env.cleanup();
    });

    it('stores a session once and reads it back by hash', async () => {
      const created = session(60_000);

      await env.storage.consoleSessions.createSession(created);

      expect(await env.storage.consoleSessions.getSession(created.idHash)).toEqual(created);
      await expect(env.storage.consoleSessions.createSession({ ...created, login: 'eve' })).rejects.toBeInstanceOf(ConflictError);
      expect((await env.storage.consoleSessions.getSession(created.idHash))?.login).toBe('alice');
      expect(await env.storage.consoleSessions.getSession(hash())).toBeUndefined();
      expect(await env.storage.consoleSessions.getSession('not-a-hash')).toBeUndefined();
    });

    it('ends a session at its expiry, whatever has been swept', async () => {
      const created = session(1_000);
      await env.storage.consoleSessions.createSession(created);

      env.clock.advance(1_000);

      expect(await env.storage.consoleSessions.getSession(created.idHash)).toBeUndefined();
    });

    it('signs out: delete ends the session and is idempotent', async () => {
      const created = session(60_000);
      await env.storage.consoleSessions.createSession(created);

      await env.storage.consoleSessions.deleteSession(created.idHash);
      await env.storage.consoleSessions.deleteSession(created.idHash);

      expect(await env.storage.consoleSessions.getSession(created.idHash)).toBeUndefined();
    });

    it('redeems a login code exactly once', async () => {
      const created = loginCode(60_000);
      await env.storage.consoleSessions.createLoginCode(created);

      const first = await env.storage.consoleSessions.redeemLoginCode(created.codeHash);
      const second = await env.storage.consoleSessions.redeemLoginCode(created.codeHash);

      expect(first).toEqual(created);
      expect(second).toBeUndefined();
      expect(await env.storage.consoleSessions.redeemLoginCode(hash())).toBeUndefined();
    });

    it('gives a code to one of many concurrent redeemers', async () => {
      const created = loginCode(60_000);
      await env.storage.consoleSessions.createLoginCode(created);

      const results = await Promise.all(
        Array.from({ length: 8 }, () => env.storage.consoleSessions.redeemLoginCode(created.codeHash)),
      );

      expect(results.filter((result) => result !== undefined)).toEqual([created]);
    });

    it('refuses a code after its expiry', async () => {
      const created = loginCode(60_000);
      await env.storage.consoleSessions.createLoginCode(created);
      await expect(env.storage.consoleSessions.createLoginCode(created)).rejects.toBeInstanceOf(ConflictError);

      env.clock.advance(60_000);

      expect(await env.storage.consoleSessions.redeemLoginCode(created.codeHash)).toBeUndefined();
    });
  });
}
