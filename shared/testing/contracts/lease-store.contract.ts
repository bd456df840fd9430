import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForbiddenError, LeaseHeldError } from '../../core/errors.js';
import type { AcquireRequest } from '../../ports/index.js';
import { uniqueId, type ContractEnv, type ContractSetup } from './setup.js';

const DURATION = 60_000;

function request(stackId: string, holder = 'alice'): AcquireRequest {
  return { stackId, updateId: uniqueId(), holder, durationMs: DURATION };
}

/** LeaseStore guarantees: exclusive acquire with holder, expiry takeover, token lifecycle, hashed tokens. */
export function leaseStoreContract(adapterName: string, setup: ContractSetup): void {
  describe(`LeaseStore contract (${adapterName})`, () => {
    let env: ContractEnv;
    beforeAll(async () => {
      env = await setup();
    });
    afterAll(async () => {
      await env.cleanup();
    });

    it('acquires, validates and reports the current holder', async () => {
      const req = request(uniqueId());
      const grant = await env.storage.leases.acquire(req);
      expect(grant.token).toMatch(/^[A-Za-z0-9_-]{43,}$/);
      await env.storage.leases.validate({ stackId: req.stackId, updateId: req.updateId, token: grant.token });
      const current = await env.storage.leases.current(req.stackId);
      expect(current).toMatchObject({ updateId: req.updateId, holder: 'alice', expiresAt: grant.expiresAt });
      expect(grant.expiresAt - current!.startedAt).toBe(DURATION);
    });

    it('refuses a contested acquire with LeaseHeldError carrying the holder', async () => {
      const first = request(uniqueId());
      const grant = await env.storage.leases.acquire(first);
      const error = await env.storage.leases.acquire({ ...request(first.stackId, 'bob') }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LeaseHeldError);
      const lease = (error as LeaseHeldError).lease;
      expect(lease).toMatchObject({ updateId: first.updateId, holder: 'alice', expiresAt: grant.expiresAt });
      expect(typeof lease.startedAt).toBe('number');
      await env.storage.leases.validate({ ...first, token: grant.token });
    });

    it('lets an expired lease be taken over and kills the old token', async () => {
      const first = request(uniqueId());
      const old = await env.storage.leases.acquire(first);
      env.clock.advance(DURATION + 1);
      const second = request(first.stackId, 'bob');
      const grant = await env.storage.leases.acquire(second);
      await env.storage.leases.validate({ ...second, token: grant.token });
      await expect(env.storage.leases.validate({ ...first, token: old.token })).rejects.toBeInstanceOf(ForbiddenError);
      await expect(env.storage.leases.renew({ ...first, token: old.token }, DURATION)).rejects.toBeInstanceOf(
        ForbiddenError,
      );
      expect((await env.storage.leases.current(first.stackId))?.updateId).toBe(second.updateId);
    });

    it('treats an expired token as dead even before anyone takes over', async () => {
      const req = request(uniqueId());
      const grant = await env.storage.leases.acquire(req);
      env.clock.advance(DURATION + 1);
      await expect(env.storage.leases.validate({ ...req, token: grant.token })).rejects.toBeInstanceOf(ForbiddenError);
      expect(await env.storage.leases.current(req.stackId)).toBeUndefined();
    });

    it('renews: same token, later expiry, keeps working past the original expiry', async () => {
      const req = request(uniqueId());
      const grant = await env.storage.leases.acquire(req);
      const ref = { ...req, token: grant.token };
      env.clock.advance(DURATION / 2);
      const renewed = await env.storage.leases.renew(ref, DURATION);
      expect(renewed.token).toBe(grant.token);
      expect(renewed.expiresAt).toBeGreaterThan(grant.expiresAt);
      env.clock.advance(DURATION / 2 + 10);
      await env.storage.leases.validate(ref);
      await expect(env.storage.leases.acquire(request(req.stackId, 'bob'))).rejects.toBeInstanceOf(LeaseHeldError);
    });

    it('release frees the lease and kills the token; a second release is refused', async () => {
      const req = request(uniqueId());
      const grant = await env.storage.leases.acquire(req);
      const ref = { ...req, token: grant.token };
      await env.storage.leases.release(ref);
      await expect(env.storage.leases.validate(ref)).rejects.toBeInstanceOf(ForbiddenError);
      await expect(env.storage.leases.renew(ref, DURATION)).rejects.toBeInstanceOf(ForbiddenError);
      await expect(env.storage.leases.release(ref)).rejects.toBeInstanceOf(ForbiddenError);
      expect(await env.storage.leases.current(req.stackId)).toBeUndefined();
      await env.storage.leases.acquire(request(req.stackId, 'bob'));
    });

    it('revoke frees the lease and kills the token; revoking again does nothing', async () => {
      const req = request(uniqueId());
      const grant = await env.storage.leases.acquire(req);
      await env.storage.leases.revoke(req.stackId, req.updateId);
      await expect(env.storage.leases.validate({ ...req, token: grant.token })).rejects.toBeInstanceOf(ForbiddenError);
      await expect(env.storage.leases.renew({ ...req, token: grant.token }, DURATION)).rejects.toBeInstanceOf(
        ForbiddenError,
      );
      await env.storage.leases.revoke(req.stackId, req.updateId);
      await env.storage.leases.revoke(uniqueId(), uniqueId());
      await env.storage.leases.acquire(request(req.stackId, 'bob'));
    });

    it('rejects a token used for another update, another stack or a wrong value', async () => {
      const req = request(uniqueId());
      const grant = await env.storage.leases.acquire(req);
      const other = await env.storage.leases.acquire(request(uniqueId()));
      await expect(
        env.storage.leases.validate({ ...req, updateId: uniqueId(), token: grant.token }),
      ).rejects.toBeInstanceOf(ForbiddenError);
      await expect(
        env.storage.leases.validate({ ...req, stackId: uniqueId(), token: grant.token }),
      ).rejects.toBeInstanceOf(ForbiddenError);
      await expect(env.storage.leases.validate({ ...req, token: other.token })).rejects.toBeInstanceOf(ForbiddenError);
      await expect(env.storage.leases.validate({ ...req, token: '' })).rejects.toBeInstanceOf(ForbiddenError);
      await env.storage.leases.validate({ ...req, token: grant.token });
    });

    it('issues dry-run tokens that do not block acquire and die on release or revoke', async () => {
      const stackId = uniqueId();
      const dry = request(stackId);
      const dryGrant = await env.storage.leases.issue(dry);
      const dry2 = request(stackId);
      const dryGrant2 = await env.storage.leases.issue(dry2);
      await env.storage.leases.validate({ ...dry, token: dryGrant.token });
      const real = request(stackId, 'bob');
      await env.storage.leases.acquire(real);
      expect((await env.storage.leases.current(stackId))?.updateId).toBe(real.updateId);
      await env.storage.leases.validate({ ...dry, token: dryGrant.token });
      const renewed = await env.storage.leases.renew({ ...dry, token: dryGrant.token }, DURATION);
      expect(renewed.token).toBe(dryGrant.token);
      await env.storage.leases.release({ ...dry, token: dryGrant.token });
      await expect(env.storage.leases.validate({ ...dry, token: dryGrant.token })).rejects.toBeInstanceOf(
        ForbiddenError,
      );
      await env.storage.leases.revoke(stackId, dry2.updateId);
      await expect(env.storage.leases.validate({ ...dry2, token: dryGrant2.token })).rejects.toBeInstanceOf(
        ForbiddenError,
      );
      expect((await env.storage.leases.current(stackId))?.updateId).toBe(real.updateId);
    });

    it('numbers state saves in the lease write: 1, 2, 3, …, never twice, and anew after a takeover', async () => {
      const req = request(uniqueId());
      const grant = await env.storage.leases.acquire(req);
      const ref = { ...req, token: grant.token };
      expect(await env.storage.leases.nextSave(ref)).toBe(1);
      const concurrent = await Promise.all(Array.from({ length: 8 }, () => env.storage.leases.nextSave(ref)));
      expect([...concurrent].sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
      env.clock.advance(DURATION + 1);
      await expect(env.storage.leases.nextSave(ref)).rejects.toBeInstanceOf(ForbiddenError);
      const next = request(req.stackId, 'bob');
      const taken = await env.storage.leases.acquire(next);
      expect(await env.storage.leases.nextSave({ ...next, token: taken.token })).toBe(1);
      await expect(env.storage.leases.nextSave(ref)).rejects.toBeInstanceOf(ForbiddenError);
    });

    it('refuses to number saves for dry-run, released, revoked or foreign tokens', async () => {
      const stackId = uniqueId();
      const dry = request(stackId);
      const dryGrant = await env.storage.leases.issue(dry);
      await expect(env.storage.leases.nextSave({ ...dry, token: dryGrant.token })).rejects.toBeInstanceOf(ForbiddenError);
      const req = request(stackId);
      const grant = await env.storage.leases.acquire(req);
      await expect(env.storage.leases.nextSave({ ...req, token: dryGrant.token })).rejects.toBeInstanceOf(ForbiddenError);
      await expect(env.storage.leases.nextSave({ ...req, updateId: dry.updateId, token: grant.token })).rejects.toBeInstanceOf(
        ForbiddenError,
      );
      await env.storage.leases.release({ ...req, token: grant.token });
      await expect(env.storage.leases.nextSave({ ...req, token: grant.token })).rejects.toBeInstanceOf(ForbiddenError);
      const again = request(stackId);
      const againGrant = await env.storage.leases.acquire(again);
      await env.storage.leases.revoke(stackId, again.updateId);
      await expect(env.storage.leases.nextSave({ ...again, token: againGrant.token })).rejects.toBeInstanceOf(ForbiddenError);
    });

    it('checks the stack name a token was granted under when the caller gives one', async () => {
      const name = { org: 'acme', project: 'web', stack: 'prod' };
      const other = { ...name, stack: 'dev' };
      const req = { ...request(uniqueId()), stack: name };
      const grant = await env.storage.leases.acquire(req);
      const dry = { ...request(req.stackId), stack: name };
      const dryGrant = await env.storage.leases.issue(dry);
      const ref = { ...req, token: grant.token };
      await env.storage.leases.validate(ref);
      await env.storage.leases.validate({ ...dry, token: dryGrant.token });
      const { stack: _omitted, ...unnamed } = ref;
      await env.storage.leases.validate(unnamed);
      await expect(env.storage.leases.validate({ ...ref, stack: other })).rejects.toBeInstanceOf(ForbiddenError);
      await expect(env.storage.leases.validate({ ...dry, token: dryGrant.token, stack: other })).rejects.toBeInstanceOf(
        ForbiddenError,
      );
      await expect(env.storage.leases.nextSave({ ...ref, stack: other })).rejects.toBeInstanceOf(ForbiddenError);
      await expect(env.storage.leases.renew({ ...ref, stack: other }, DURATION)).rejects.toBeInstanceOf(ForbiddenError);
      await expect(env.storage.leases.release({ ...ref, stack: other })).rejects.toBeInstanceOf(ForbiddenError);
      expect(await env.storage.leases.nextSave(ref)).toBe(1);
      expect((await env.storage.leases.renew(ref, DURATION)).token).toBe(grant.token);
      await env.storage.leases.release(ref);
      await expect(env.storage.leases.validate(ref)).rejects.toBeInstanceOf(ForbiddenError);
      const grantedUnnamed = request(uniqueId());
      const unnamedGrant = await env.storage.leases.acquire(grantedUnnamed);
      await expect(env.storage.leases.validate({ ...grantedUnnamed, token: unnamedGrant.token, stack: name })).rejects.toBeInstanceOf(
        ForbiddenError,
      );
    });

    it('never stores a token in plaintext', async (ctx) => {
      if (!env.findPlaintext) ctx.skip();
      const req = request(uniqueId());
      const grant = await env.storage.leases.acquire(req);
      const dry = await env.storage.leases.issue(request(req.stackId));
      expect(await env.findPlaintext!(grant.token)).toBe(false);
      expect(await env.findPlaintext!(dry.token)).toBe(false);
      expect(await env.findPlaintext!(req.updateId)).toBe(true);
    });
  });
}
