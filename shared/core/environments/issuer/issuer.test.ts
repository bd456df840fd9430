/**
 * Rotation of the OIDC issuer's signing key: the next key is published before it signs, tokens name their key in
 * `kid`, the previous key stays published until its last token has expired, and two rotations at once leave one
 * new key (the object store's put-once write, on the local adapter and on S3 through s3rver).
 */
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { serviceFixture, type ServiceFixture } from '../../../../test/support/service-fixture.js';
import { startS3rverCheckpointStore, type S3rverCheckpointStore } from '../../../../test/support/s3rver-checkpoint-store.js';
import { ConflictError, PermissionDeniedError } from '../../errors.js';
import type { ServiceDeps } from '../../kernel/deps.js';
import { createEnvironmentService } from '../environment-service.js';
import { ID_TOKEN_LIFETIME_SECONDS, ISSUER_KEY_SCOPE, issuerKeySet, issuerKeyStandings, PUBLISH_AHEAD_SECONDS, RETIRE_AFTER_SECONDS, rotateIssuerKey, signIdToken } from './index.js';

const CLAIMS = { subject: 'pulumi:environments:org:acme:env:app/dev', audience: 'aws:acme' };
const SECOND = 1000;

let fx: ServiceFixture;

beforeEach(async () => {
  fx = await serviceFixture({ serviceUrl: 'https://stackyard.example.com/' });
});

afterEach(async () => {
  await fx.close();
});

/** Another instance on the same storage: its own copy of the chain and its own opened keys. */
const instance = (deps: ServiceDeps): ServiceDeps => ({ ...deps, storage: { ...deps.storage } });
const kidOf = (token: string) => decodeProtectedHeader(token).kid;
const kids = async (deps: ServiceDeps) => (await issuerKeySet(deps)).keys.map((key) => key.kid);
const verifies = async (deps: ServiceDeps, token: string) =>
  jwtVerify(token, createLocalJWKSet((await issuerKeySet(deps)) as JSONWebKeySet), { currentDate: new Date(deps.now()) }).then(
    () => true,
    () => false,
  );

describe('rotating the OIDC issuer key', () => {
  it('publishes the next key at once, signs with it after PUBLISH_AHEAD, and keeps the previous key until its last token has expired', async () => {
    const before = await signIdToken(fx.deps, CLAIMS);
    const first = kidOf(before);

    const [, next] = await rotateIssuerKey(fx.deps);

    expect(next).toMatchObject({ generation: 2, state: 'next', signsFrom: fx.deps.now() + PUBLISH_AHEAD_SECONDS * SECOND });
    expect(await kids(fx.deps)).toEqual([first, next!.kid]);
    const stillOld = await signIdToken(fx.deps, CLAIMS);
    expect(kidOf(stillOld)).toBe(first);

    fx.advance(PUBLISH_AHEAD_SECONDS * SECOND - 1);
    const lastOld = await signIdToken(fx.deps, CLAIMS);
    fx.advance(1);
    const fresh = await signIdToken(fx.deps, CLAIMS);

    expect(kidOf(lastOld)).toBe(first);
    expect(kidOf(fresh)).toBe(next!.kid);
    expect(await verifies(fx.deps, lastOld)).toBe(true);
    expect(await verifies(fx.deps, fresh)).toBe(true);
    expect((await issuerKeyStandings(fx.deps)).map((k) => k.state)).toEqual(['previous', 'signing']);

    // lastOld's expiry is whole seconds after PUBLISH_AHEAD - 1 s: still valid two seconds before the lifetime ends.
    fx.advance((ID_TOKEN_LIFETIME_SECONDS - 2) * SECOND);
    expect(await verifies(fx.deps, lastOld)).toBe(true);
    fx.advance((RETIRE_AFTER_SECONDS - ID_TOKEN_LIFETIME_SECONDS + 2) * SECOND - 1);
    expect(await kids(fx.deps)).toEqual([first, next!.kid]);
    fx.advance(1);
    expect(await kids(fx.deps)).toEqual([next!.kid]);
    expect(await verifies(fx.deps, await signIdToken(fx.deps, CLAIMS))).toBe(true);
    expect(await issuerKeyStandings(fx.deps)).toEqual([
      expect.objectContaining({ generation: 1, kid: first, state: 'retired' }),
      expect.objectContaining({ generation: 2, kid: next!.kid, state: 'signing' }),
    ]);
  });

  it('refuses a rotation while the rotated key waits to sign, and allows the next one once it signs', async () => {
    await rotateIssuerKey(fx.deps);

    await expect(rotateIssuerKey(fx.deps)).rejects.toThrow(ConflictError);
    fx.advance(PUBLISH_AHEAD_SECONDS * SECOND);
    const standings = await rotateIssuerKey(fx.deps);

    expect(standings.map((k) => [k.generation, k.state])).toEqual([[1, 'previous'], [2, 'signing'], [3, 'next']]);
  });

  it("reaches another instance's key set within its refresh, and that instance signs with the new key when it is due", async () => {
    const other = instance(fx.deps);
    const first = await kids(other);

    const [, next] = await rotateIssuerKey(fx.deps);
    fx.advance(61 * SECOND);

    expect(await kids(other)).toEqual([...first, next!.kid]);
    fx.advance(PUBLISH_AHEAD_SECONDS * SECOND);
    expect(kidOf(await signIdToken(other, CLAIMS))).toBe(next!.kid);
  });

  it('lets only administrators rotate or list the keys, and records the rotation in the site log', async () => {
    const environments = createEnvironmentService(fx.deps);
    const member = await fx.user('alice', ['acme']);

    await expect(environments.rotateIssuerKey(member)).rejects.toThrow(PermissionDeniedError);
    await expect(environments.issuerKeys(member)).rejects.toThrow(PermissionDeniedError);
    expect(await environments.issuerKeys(fx.admin)).toEqual([expect.objectContaining({ generation: 1, state: 'signing' })]);
    await environments.rotateIssuerKey(fx.admin);

    const log = await fx.storage.audit.list({ org: '' });
    expect(log.entries.filter((e) => e.event === 'oidc.issuer-key-rotated').map((e) => [e.actor, e.target])).toEqual([['admin', 'oidc-issuer']]);
  });

  it('two rotations at once on the local adapter: one makes the next key, the other is refused', async () => {
    await issuerKeySet(fx.deps);

    const results = await Promise.allSettled([rotateIssuerKey(instance(fx.deps)), rotateIssuerKey(instance(fx.deps))]);

    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(results.find((r) => r.status === 'rejected')?.reason).toBeInstanceOf(ConflictError);
    expect((await fx.storage.checkpoints.list(ISSUER_KEY_SCOPE, '')).sort()).toEqual(['signing-key-v1.json', 'signing-key-v2.json']);
  });
});

describe('the issuer key chain on S3 (s3rver)', () => {
  let s3: S3rverCheckpointStore;
  beforeAll(async () => {
    s3 = await startS3rverCheckpointStore('issuer');
  }, 60_000);
  afterAll(async () => {
    await s3.stop();
  });

  it('reads a first key stored before rotation existed as signing from the start; two rotations at once make one next key', async () => {
    await issuerKeySet(fx.deps);
    const legacy = JSON.parse(Buffer.from(await fx.storage.checkpoints.get({ stackId: ISSUER_KEY_SCOPE, name: 'signing-key-v1.json' })).toString('utf8'));
    for (const field of ['generation', 'createdAt', 'signsFrom']) delete legacy[field];
    await s3.store.put({ stackId: ISSUER_KEY_SCOPE, name: 'signing-key-v1.json' }, Buffer.from(JSON.stringify(legacy), 'utf8'));
    const onS3 = { ...fx.deps, storage: { ...fx.storage, checkpoints: s3.store } };

    const token = await signIdToken(onS3, CLAIMS);
    const results = await Promise.allSettled([rotateIssuerKey(instance(onS3)), rotateIssuerKey(instance(onS3))]);

    expect(kidOf(token)).toBe(legacy.kid);
    expect(await verifies(onS3, token)).toBe(true);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(results.find((r) => r.status === 'rejected')?.reason).toBeInstanceOf(ConflictError);
    expect((await issuerKeyStandings(onS3)).map((k) => [k.generation, k.state])).toEqual([[1, 'signing'], [2, 'next']]);
  });
});
