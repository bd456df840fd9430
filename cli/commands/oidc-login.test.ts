import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UserError } from '../output/errors.js';
import { oidcExpirationSeconds, oidcTarget, readOidcToken } from './oidc-login.js';

const jwt = (claims: Record<string, unknown>) =>
  `${Buffer.from('{"alg":"RS256","typ":"JWT"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.c2ln`;

describe('login --oidc-* as the Pulumi CLI reads them', () => {
  const dir = mkdtempSync(join(tmpdir(), 'stackyard-oidc-login-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('takes the token itself or file://<path>, trimmed, and refuses anything else', async () => {
    const token = jwt({ sub: 'x' });
    writeFileSync(join(dir, 'token'), `  ${token}\n`);
    writeFileSync(join(dir, 'empty'), '\n');
    writeFileSync(join(dir, 'junk'), 'not a jwt');

    expect(await readOidcToken(token)).toBe(token);
    expect(await readOidcToken(`file://${join(dir, 'token')}`)).toBe(token);
    await expect(readOidcToken(`file://${join(dir, 'empty')}`)).rejects.toThrow(/is empty/);
    await expect(readOidcToken(`file://${join(dir, 'junk')}`)).rejects.toThrow(/does not hold a JWT/);
    await expect(readOidcToken(`file://${join(dir, 'missing')}`)).rejects.toThrow(/ENOENT/);
    await expect(readOidcToken('plain-text')).rejects.toThrow(/must be a JWT or 'file:\/\/<path>'/);
  });

  it("defaults the organization from aud and the team or user from scope, and refuses conflicts", () => {
    const token = jwt({ aud: 'urn:pulumi:org:acme', scope: 'openid user:alice' });

    expect(oidcTarget({}, token)).toEqual({ org: 'acme', user: 'alice' });
    expect(oidcTarget({ oidcOrg: 'acme', oidcUser: 'alice' }, token)).toEqual({ org: 'acme', user: 'alice' });
    expect(oidcTarget({ oidcOrg: 'acme', oidcTeam: 'ops' }, jwt({ aud: 'sts.amazonaws.com' }))).toEqual({ org: 'acme', team: 'ops' });
    expect(() => oidcTarget({ oidcUser: 'bob' }, token)).toThrow("--oidc-user 'bob' conflicts with the token's scope user 'alice'");
    expect(() => oidcTarget({}, jwt({ aud: 'sts.amazonaws.com' }))).toThrow(/organization must be given/);
    expect(() => oidcTarget({ oidcOrg: 'acme', oidcTeam: 'ops', oidcUser: 'alice' }, jwt({}))).toThrow(/only one of --oidc-team or --oidc-user/);
    expect(() => oidcTarget({}, jwt({ aud: 'urn:pulumi:org:acme', scope: ['team:ops', 'user:alice'] }))).toThrow(UserError);
  });

  it('reads --oidc-expiration in Go duration syntax, 2 hours by default', () => {
    expect(oidcExpirationSeconds(undefined)).toBe(7200);
    expect(oidcExpirationSeconds('15m')).toBe(900);
    expect(oidcExpirationSeconds('1h30m')).toBe(5400);
    expect(() => oidcExpirationSeconds('soon')).toThrow(/could not parse expiration duration 'soon'/);
    expect(() => oidcExpirationSeconds('500ms')).toThrow(/could not parse/);
  });
});
