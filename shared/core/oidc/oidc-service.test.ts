import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ForbiddenError, InvalidInputError, OidcPolicyLimitError, UnauthorizedError } from '../errors.js';
import { serviceFixture, type ServiceFixture } from '../../../test/support/service-fixture.js';
import type { Principal } from '../kernel/principal.js';
import { newSigningKey, TestIssuer } from '../../testing/oidc-issuer.js';
import { parseTokenExchange } from './exchange-request.js';
import { createOidcService, type OidcService } from './oidc-service.js';
import { IssuerFetchError } from './types.js';

const ISSUER = 'https://ci.example.test';
const AUDIENCE = 'urn:pulumi:org:acme';
const SUB = 'repo:acme/infra:ref:refs/heads/main';

/** The form `pulumi login --oidc-token … --oidc-org acme [--oidc-team ops]` posts (client.ExchangeOidcToken). */
function form(token: string, scope = '', expiration = 7200): Record<string, string> {
  const type = scope.startsWith('team:') ? 'team' : scope.startsWith('user:') ? 'personal' : 'organization';
  return {
    audience: AUDIENCE,
    grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
    requested_token_type: `urn:pulumi:token-type:access_token:${type}`,
    scope,
    subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
    subject_token: token,
    expiration: String(expiration),
  };
}

describe('OIDC trust policies and the token exchange', () => {
  let fx: ServiceFixture;
  let oidc: OidcService;
  let issuer: TestIssuer;
  let admin: Principal;

  beforeEach(async () => {
    issuer = await TestIssuer.create(ISSUER);
    fx = await serviceFixture({
      oidc: {
        fetchJson: async (url) => {
          const body = issuer.document(url);
          if (body === undefined) throw new IssuerFetchError('answered HTTP 404');
          return body;
        },
      },
    });
    // The fixture's clock is fixed in the past; ID tokens carry real times, so the service follows the real clock.
    fx.advance(Date.now() - fx.deps.now());
    oidc = createOidcService(fx.deps);
    admin = await fx.user('alice', ['acme'], 'admin');
    await fx.access.createTeam(admin, 'acme', 'ops');
    await oidc.createPolicy(admin, 'acme', { issuer: ISSUER, claims: { sub: 'repo:acme/infra:ref:refs/heads/*' }, tokenKind: 'team', team: 'ops', maxLifetimeSeconds: 3600 });
  });

  afterEach(async () => {
    await fx.close();
  });

  const exchange = async (token: string, scope = 'team:ops', expiration = 7200) => oidc.exchange(parseTokenExchange(form(token, scope, expiration)));
  const refusal = async (token: string, scope = 'team:ops') => {
    const error = await exchange(token, scope).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(UnauthorizedError);
    return (error as Error).message;
  };

  it('issues a team token for a matching ID token, with the shorter of the requested and allowed lifetimes', async () => {
    const result = await exchange(await issuer.sign({ sub: SUB, aud: AUDIENCE }));

    expect(result).toMatchObject({ issuedTokenType: 'urn:pulumi:token-type:access_token:team', expiresInSeconds: 3600, scope: 'team:ops' });
    const principal = await fx.identity.authenticate(result.accessToken);
    expect(principal.token).toMatchObject({ kind: 'team', org: 'acme', team: 'ops' });
    expect(result.record.expiresAt! - result.record.createdAt).toBe(3600_000);
    expect((await exchange(await issuer.sign({ sub: SUB, aud: AUDIENCE }), 'team:ops', 600)).expiresInSeconds).toBe(600);
    const log = await fx.storage.audit.list({ org: 'acme' });
    expect(log.entries.filter((e) => e.event === 'oidc.token-issued').map((e) => e.actor)).toEqual([`oidc:${SUB}`, `oidc:${SUB}`]);
  });

  it("issues a personal token acting as the user who created the policy, and an organization token", async () => {
    await oidc.createPolicy(admin, 'acme', { issuer: ISSUER, claims: { sub: 'repo:acme/tools:*' }, tokenKind: 'personal', user: 'alice' });
    await oidc.createPolicy(admin, 'acme', { issuer: ISSUER, claims: { sub: 'repo:acme/org-wide:*' }, tokenKind: 'organization' });

    const personal = await exchange(await issuer.sign({ sub: 'repo:acme/tools:ref:refs/heads/main', aud: AUDIENCE }), 'user:alice');
    const organization = await exchange(await issuer.sign({ sub: 'repo:acme/org-wide:ref:refs/heads/main', aud: AUDIENCE }), '');

    expect(personal.issuedTokenType).toBe('urn:pulumi:token-type:access_token:personal');
    expect(await fx.identity.authenticate(personal.accessToken)).toMatchObject({ login: 'alice', roles: { acme: 'admin' }, token: { kind: 'personal' } });
    expect((await fx.identity.listTokens(admin)).map((t) => t.createdBy)).toContain(personal.record.createdBy);
    expect(await fx.identity.authenticate(organization.accessToken)).toMatchObject({ login: 'acme.org', token: { kind: 'organization', org: 'acme' } });
    expect(await refusal(await issuer.sign({ sub: 'repo:acme/tools:ref:refs/heads/main', aud: AUDIENCE }), 'user:bob')).toMatch(/policy .*: it issues personal \(user 'alice'\) tokens, not the requested personal \(user 'bob'\) token/);
  });

  it('never lets an issued token authenticate once it expires, stops listing it and removes it', async () => {
    const issued = await exchange(await issuer.sign({ sub: SUB, aud: AUDIENCE }), 'team:ops', 600);
    const listedAlive = (await fx.access.listOrgTokens(admin, 'acme', 'ops')).map((t) => t.id);
    fx.advance(599_999);
    const lastMoment = await fx.identity.authenticate(issued.accessToken);
    fx.advance(1);

    const refused = await fx.identity.authenticate(issued.accessToken).then(() => undefined, (e: unknown) => e);
    const listedExpired = (await fx.access.listOrgTokens(admin, 'acme', 'ops')).map((t) => t.id);
    const refusedAfterRemoval = await fx.identity.authenticate(issued.accessToken).then(() => undefined, (e: unknown) => e);

    expect(listedAlive).toContain(issued.record.id);
    expect(lastMoment.token).toMatchObject({ kind: 'team', team: 'ops' });
    expect(refused).toBeInstanceOf(UnauthorizedError);
    expect(listedExpired).not.toContain(issued.record.id);
    expect(await fx.storage.identity.findToken(issued.record.tokenHash)).toBeUndefined();
    expect(refusedAfterRemoval).toBeInstanceOf(UnauthorizedError);
    const failures = (await fx.storage.audit.list({ org: 'acme' })).entries.filter((e) => e.event === 'auth.failed');
    expect(failures.map((e) => [e.description, e.tokenId])).toEqual([[`expired access token ${issued.record.id}`, issued.record.id]]);
  });

  it('verifies ES256 tokens and tokens without a kid when the issuer has one key of that type', async () => {
    const es = issuer.published[1]!;
    await expect(exchange(await issuer.sign({ sub: SUB, aud: AUDIENCE }, { key: es }))).resolves.toBeDefined();
    await expect(exchange(await issuer.sign({ sub: SUB, aud: AUDIENCE }, { key: es, kid: null }))).resolves.toBeDefined();
  });

  it.each([
    ['wrong audience', { sub: SUB, aud: 'urn:pulumi:org:other' }, /audience \(aud\) \["urn:pulumi:org:other"\] is not one it accepts/],
    ['subject claim mismatch', { sub: 'repo:acme/infra:ref:refs/tags/v1', aud: AUDIENCE }, /claim 'sub' is 'repo:acme\/infra:ref:refs\/tags\/v1', which does not match 'repo:acme\/infra:ref:refs\/heads\/\*'/],
    ['subject from another owner', { sub: 'repo:acme-evil/infra:ref:refs/heads/main', aud: AUDIENCE }, /claim 'sub' .* does not match/],
    ['expired', { sub: SUB, aud: AUDIENCE, exp: Math.floor(Date.now() / 1000) - 61, iat: Math.floor(Date.now() / 1000) - 400 }, /the ID token expired at .* \(exp; 60 s of clock skew allowed\)/],
    ['not yet valid', { sub: SUB, aud: AUDIENCE, nbf: Math.floor(Date.now() / 1000) + 120 }, /not valid before .* \(nbf; 60 s/],
    ['issued in the future', { sub: SUB, aud: AUDIENCE, iat: Math.floor(Date.now() / 1000) + 120, nbf: undefined }, /issued in the future, at .* \(iat;/],
    ['wrong issuer', { sub: SUB, aud: AUDIENCE, iss: 'https://evil.example.test' }, /issuer \(iss\) 'https:\/\/evil.example.test' is not trusted/],
    ['missing iat', { sub: SUB, aud: AUDIENCE, iat: undefined }, /no issue time \(iat\)/],
  ])('refuses %s with a message naming the check', async (_name, claims, message) => {
    expect(await refusal(await issuer.sign(claims))).toMatch(message);
  });

  it('tolerates 60 s of clock skew and no more', async () => {
    const now = Math.floor(Date.now() / 1000);
    await expect(exchange(await issuer.sign({ sub: SUB, aud: AUDIENCE, exp: now - 50, iat: now - 300 }))).resolves.toBeDefined();
    await expect(exchange(await issuer.sign({ sub: SUB, aud: AUDIENCE, nbf: now + 50, iat: now + 50 }))).resolves.toBeDefined();
  });

  it('refuses a token kind the policy does not issue', async () => {
    expect(await refusal(await issuer.sign({ sub: SUB, aud: AUDIENCE }), '')).toMatch(/it issues team 'ops' tokens, not the requested organization token/);
    expect(await refusal(await issuer.sign({ sub: SUB, aud: AUDIENCE }), 'team:dev')).toMatch(/it issues team 'ops' tokens, not the requested team 'dev' token/);
  });

  it("refuses alg 'none', HMAC, a bad signature and an unknown key id", async () => {
    expect(await refusal(issuer.unsigned({ sub: SUB, aud: AUDIENCE }))).toMatch(/alg 'none' is refused/);
    const forged = await newSigningKey('RS256', issuer.published[0]!.kid);
    expect(await refusal(await issuer.sign({ sub: SUB, aud: AUDIENCE }, { key: forged }))).toMatch(/bad signature/);
    const stranger = await newSigningKey('RS256', 'never-published');
    expect(await refusal(await issuer.sign({ sub: SUB, aud: AUDIENCE }, { key: stranger }))).toMatch(/unknown key id \(kid\) 'never-published'/);
    const [header, payload] = (await issuer.sign({ sub: SUB, aud: AUDIENCE })).split('.');
    const hs = `${Buffer.from(JSON.stringify({ alg: 'HS256', kid: issuer.published[0]!.kid })).toString('base64url')}.${payload}.c2ln`;
    expect(header).toBeDefined();
    expect(await refusal(hs)).toMatch(/alg 'HS256' is refused/);
    expect(await refusal('not-a-jwt')).toMatch(/not a JWT/);
  });

  it('refuses a header whose alg or kid is not a string as it refuses any other bad header', async () => {
    const [, payload] = (await issuer.sign({ sub: SUB, aud: AUDIENCE })).split('.');
    const withHeader = (header: object) => `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${payload}.c2ln`;

    const algObject = await refusal(withHeader({ alg: { toString: 1 }, kid: issuer.published[0]!.kid }));
    const algList = await refusal(withHeader({ alg: ['RS256'], kid: issuer.published[0]!.kid }));
    const kidObject = await refusal(withHeader({ alg: 'RS256', kid: { toString: 1 } }));

    expect(algObject).toMatch(/"alg" must be a string/);
    expect(algList).toMatch(/"alg" must be a string/);
    expect(kidObject).toMatch(/"kid" must be a string/);
  });

  it("refuses an issuer whose discovery document's issuer is not a string, quoting it as JSON", async () => {
    const odd = createOidcService({
      ...fx.deps,
      options: {
        ...fx.deps.options,
        oidc: { fetchJson: async (url) => (url.endsWith('/openid-configuration') ? { issuer: { toString: 1 }, jwks_uri: `${ISSUER}/jwks` } : issuer.document(url)) },
      },
    });

    const error = await odd.exchange(parseTokenExchange(form(await issuer.sign({ sub: SUB, aud: AUDIENCE }), 'team:ops', 7200))).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(UnauthorizedError);
    expect((error as Error).message).toMatch(/names issuer \{"toString":1\}: the two must be identical/);
  });

  it('fetches the key set again when the issuer rotates its keys, and not for every unknown key id', async () => {
    await exchange(await issuer.sign({ sub: SUB, aud: AUDIENCE }));
    expect(issuer.fetches.get('/jwks')).toBe(1);
    await issuer.rotate();

    await expect(exchange(await issuer.sign({ sub: SUB, aud: AUDIENCE }))).resolves.toBeDefined();
    expect(issuer.fetches.get('/jwks')).toBe(2);
    const stranger = await newSigningKey('RS256', 'made-up');
    expect(await refusal(await issuer.sign({ sub: SUB, aud: AUDIENCE }, { key: stranger }))).toMatch(/unknown key id/);
    expect(await refusal(await issuer.sign({ sub: SUB, aud: AUDIENCE }, { key: stranger }))).toMatch(/unknown key id/);
    expect(issuer.fetches.get('/jwks')).toBe(2);
  });

  it('uses the cached key set for 10 minutes, then fetches it again', async () => {
    const at = (offsetSeconds: number) => {
      const now = Math.floor(fx.deps.now() / 1000) + offsetSeconds;
      return { sub: SUB, aud: AUDIENCE, iat: now, nbf: now, exp: now + 300 };
    };
    await exchange(await issuer.sign(at(0)));
    fx.advance(9 * 60_000);
    await exchange(await issuer.sign(at(0)));
    expect(issuer.fetches.get('/jwks')).toBe(1);

    fx.advance(2 * 60_000);
    await exchange(await issuer.sign(at(0)));

    expect(issuer.fetches.get('/jwks')).toBe(2);
    expect(issuer.fetches.get('/.well-known/openid-configuration')).toBe(2);
  });

  it('records every refusal as an authentication failure and issues nothing', async () => {
    const before = await fx.identity.listTokens(admin);
    await refusal(await issuer.sign({ sub: 'repo:other/x:ref:refs/heads/main', aud: AUDIENCE }));

    const failures = (await fx.storage.audit.list({ org: 'acme' })).entries.filter((e) => e.event === 'auth.failed');
    expect(failures).toHaveLength(1);
    expect(failures[0]!.description).toMatch(/^OIDC token exchange refused: no trust policy of 'acme' matches: claim 'sub'/);
    expect(await fx.identity.listTokens(admin)).toEqual(before);
    expect(await fx.access.listOrgTokens(admin, 'acme', 'ops')).toEqual([]);
  });

  it('refuses organizations without policies in the site log', async () => {
    const message = await oidc.exchange(parseTokenExchange({ ...form(await issuer.sign({ sub: SUB, aud: AUDIENCE })), audience: 'urn:pulumi:org:nobody' })).catch((e: Error) => e.message);
    expect(message).toMatch(/organization 'nobody' trusts no OIDC issuer/);
    const site = (await fx.storage.audit.list({ org: '' })).entries;
    expect(site.filter((e) => e.event === 'auth.failed' && e.description.includes("'nobody' trusts no OIDC issuer"))).toHaveLength(1);
  });

  it('lets only organization administrators manage policies, and checks them', async () => {
    const member = await fx.user('bob', ['acme'], 'member');
    const policy = { issuer: ISSUER, claims: { sub: 'repo:acme/*' }, tokenKind: 'organization' as const };
    await expect(oidc.createPolicy(member, 'acme', policy)).rejects.toBeInstanceOf(ForbiddenError);
    await expect(oidc.listPolicies(member, 'acme')).rejects.toBeInstanceOf(ForbiddenError);
    await expect(oidc.createPolicy(admin, 'acme', { ...policy, issuer: 'http://ci.example.test' })).rejects.toThrow(/https URL/);
    await expect(oidc.createPolicy(admin, 'acme', { ...policy, claims: {} })).rejects.toThrow(/at least one claim condition/);
    await expect(oidc.createPolicy(admin, 'acme', { ...policy, claims: { sub: '*' } })).rejects.toThrow(/not just "\*"/);
    await expect(oidc.createPolicy(admin, 'acme', { ...policy, tokenKind: 'personal', user: 'bob' })).rejects.toThrow(/only name yourself/);
    await expect(oidc.createPolicy(admin, 'acme', { ...policy, maxLifetimeSeconds: 999_999 })).rejects.toBeInstanceOf(InvalidInputError);

    const created = await oidc.createPolicy(admin, 'acme', policy);
    expect(created).toMatchObject({ audiences: [AUDIENCE], maxLifetimeSeconds: 7200, createdBy: 'alice' });
    expect((await oidc.listPolicies(admin, 'acme')).map((p) => p.id)).toContain(created.id);
    await expect(oidc.deletePolicy(member, 'acme', created.id)).rejects.toBeInstanceOf(ForbiddenError);
    await oidc.deletePolicy(admin, 'acme', created.id);
    expect((await oidc.listPolicies(admin, 'acme')).map((p) => p.id)).not.toContain(created.id);
    const events = (await fx.storage.audit.list({ org: 'acme' })).entries.map((e) => e.event);
    expect(events.filter((e) => e.startsWith('oidc.policy')).sort()).toEqual(['oidc.policy-created', 'oidc.policy-created', 'oidc.policy-deleted']);
  });

  it('refuses a policy past the 50 of an organization with a 400, changing nothing', async () => {
    const policy = (i: number) => ({ issuer: ISSUER, claims: { sub: `repo:acme/repo${i}:*` }, tokenKind: 'organization' as const });
    for (let i = 1; i < 50; i += 1) await oidc.createPolicy(admin, 'acme', policy(i));
    const before = await fx.snapshot();

    const refused = await oidc.createPolicy(admin, 'acme', policy(50)).then(() => undefined, (e: unknown) => e);

    expect(refused).toBeInstanceOf(OidcPolicyLimitError);
    expect(refused).toMatchObject({ status: 400, message: 'An organization has at most 50 OIDC trust policies: remove one first.' });
    expect(await fx.snapshot()).toEqual(before);
    expect(await oidc.listPolicies(admin, 'acme')).toHaveLength(50);
  });

  it('refuses malformed exchange requests as the caller\'s mistake', () => {
    const base = form('x.y.z');
    const bad = (change: Record<string, string>) => () => parseTokenExchange({ ...base, ...change });
    expect(bad({ grant_type: 'refresh_token' })).toThrow(/refresh_token' is not supported/);
    expect(bad({ grant_type: 'password' })).toThrow(/grant_type must be/);
    expect(bad({ subject_token_type: 'urn:ietf:params:oauth:token-type:access_token' })).toThrow(/subject_token_type must be/);
    expect(bad({ audience: 'acme' })).toThrow(/audience must be 'urn:pulumi:org:<organization>'/);
    expect(bad({ scope: 'team:ops' })).toThrow(/is not a token Stackyard issues/);
    expect(bad({ expiration: '-5' })).toThrow(/expiration must be a positive whole number/);
    expect(bad({ expiration: '0' })).toThrow(/expiration must be a positive whole number/);
  });
});
