/**
 * OIDC for CI end to end: a loopback HTTPS issuer with its own keys and a test CA (test/support/oidc-https-issuer.ts),
 * `stackyard serve` (local storage, and AWS storage on the stand-ins) trusting that CA through NODE_EXTRA_CA_CERTS, trust policies added with the
 * bundled CLI, and ID tokens exchanged both by `stackyard login --oidc-token` and by a raw request shaped exactly as
 * the Pulumi CLI's Go client sends it (client.ExchangeOidcToken). Needs `npm run build`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSigningKey } from '../../shared/testing/oidc-issuer.js';
import { ok, PulumiWire } from '../api/pulumi-wire.js';
import { startServe, type ServeProcess } from '../api/serve-process.js';
import { createAndStart, createStack, stackPath, type Ref } from '../api/wire-fixtures.js';
import { CliSandbox, removeSandboxes, type CliResult } from '../cli/cli-harness.js';
import { startAwsStandIns, type AwsStandIns } from '../support/aws-stand-ins.js';
import { startHttpsIssuer, type HttpsIssuer } from '../support/oidc-https-issuer.js';

const AUDIENCE = 'urn:pulumi:org:acme';
const SUB = 'repo:acme/infra:ref:refs/heads/main';
const dev: Ref = { org: 'acme', project: 'proj', stack: 'dev' };

interface RawAnswer {
  status: number;
  json: Record<string, unknown>;
}

describe.each(['local', 'aws'] as const)('OIDC token exchange against stackyard serve (%s storage) and a real HTTPS issuer', (storage) => {
  let standIns: AwsStandIns | undefined;
  let https: HttpsIssuer;
  let serve: ServeProcess;
  let wire: PulumiWire;
  let aliceToken: string;
  let admin: CliSandbox;
  let adminProject: string;

  /**
   * `POST /api/oauth/token` as pkg/backend/httpstate/client.ExchangeOidcToken sends it: url.Values encoded (keys
   * sorted), Content-Type form, Go's default User-Agent and Accept-Encoding, no Authorization.
   */
  function exchangeLikePulumi(token: string, scope = 'team:ops', expiration = 7200): Promise<RawAnswer> {
    const type = scope.startsWith('team:') ? 'team' : scope.startsWith('user:') ? 'personal' : 'organization';
    const body = new URLSearchParams([
      ['audience', AUDIENCE],
      ['expiration', String(expiration)],
      ['grant_type', 'urn:ietf:params:oauth:grant-type:token-exchange'],
      ['requested_token_type', `urn:pulumi:token-type:access_token:${type}`],
      ['scope', scope],
      ['subject_token', token],
      ['subject_token_type', 'urn:ietf:params:oauth:token-type:id_token'],
    ]).toString();
    return new Promise((resolve, reject) => {
      const outgoing = request(
        `${serve.url}/api/oauth/token`,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            'content-length': Buffer.byteLength(body),
            'user-agent': 'Go-http-client/1.1',
            'accept-encoding': 'identity',
          },
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, json: JSON.parse(text) as Record<string, unknown> }));
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  }

  const refusedWith = async (token: string, message: RegExp, scope?: string) => {
    const answer = await exchangeLikePulumi(token, scope);
    expect(answer.status, JSON.stringify(answer.json)).toBe(401);
    expect(answer.json.code).toBe(401);
    expect(String(answer.json.message)).toMatch(message);
  };

  const ciLogin = (sandbox: CliSandbox, ...args: string[]): Promise<CliResult> => sandbox.run(sandbox.root, ['login', ...args]);

  beforeAll(async () => {
    [https, standIns] = await Promise.all([startHttpsIssuer(), storage === 'aws' ? startAwsStandIns() : undefined]);
    serve = await startServe({ storage, env: { ...standIns?.env, NODE_EXTRA_CA_CERTS: https.caFile, STACKYARD_OIDC_ALLOW_PRIVATE: 'true' } });
    wire = new PulumiWire(serve.url);
    const asAdmin = { token: serve.adminToken };
    ok(await wire.call('POST', '/api/orgs', { auth: asAdmin, body: { name: 'acme' } }), 201);
    ok(await wire.call('POST', '/api/users', { auth: asAdmin, body: { login: 'alice' } }), 201);
    ok(await wire.call('POST', '/api/orgs/acme/members', { auth: asAdmin, body: { login: 'alice', role: 'admin' } }), 201);
    aliceToken = (ok(await wire.call('POST', '/api/user/tokens', { auth: asAdmin, body: { description: 'alice', login: 'alice' } }), 201) as { tokenValue: string }).tokenValue;
    ok(await wire.call('POST', '/api/orgs/acme/teams', { auth: { token: aliceToken }, body: { name: 'ops' } }), 201);
    await createStack(wire, aliceToken, dev);
    ok(await wire.call('PATCH', `${stackPath(dev)}/permissions`, { auth: { token: aliceToken }, body: { team: 'ops', permission: 'write' } }));

    admin = new CliSandbox({ STACKYARD_ACCESS_TOKEN: aliceToken });
    adminProject = admin.project('admin', 'name: admin\nruntime: nodejs\n');
    const login = await admin.run(adminProject, ['login', serve.url]);
    expect(login.status, login.stderr).toBe(0);
    const added = await admin.run(adminProject, [
      'org', 'oidc-policy', 'add', 'acme',
      '--issuer', https.issuer.url,
      '--claim', 'sub=repo:acme/infra:ref:refs/heads/*',
      '--claim', 'repository_owner=acme',
      '--team', 'ops',
      '--max-lifetime', '1h',
      '--description', 'infra deploys',
    ]);
    expect(added.status, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/Added OIDC trust policy .* → team ops tokens \(at most 3600 s\)/);
  }, 60_000);

  afterAll(async () => {
    wire?.close();
    await serve?.stop();
    await https?.close();
    await standIns?.stop();
    removeSandboxes();
  });

  it('lists and removes policies from the CLI', async () => {
    const extra = JSON.parse((await admin.run(adminProject, ['org', 'oidc-policy', 'add', 'acme', '--issuer', 'https://gitlab.com', '--claim', 'project_path=acme/*', '--json'])).stdout) as { id: string };
    const removed = await admin.run(adminProject, ['org', 'oidc-policy', 'rm', 'acme', extra.id]);
    expect(removed.stdout).toContain(`Removed OIDC trust policy ${extra.id} from 'acme'`);
    const table = await admin.run(adminProject, ['org', 'oidc-policy', 'ls', 'acme']);
    expect(table.stdout).toMatch(/sub=repo:acme\/infra:ref:refs\/heads\/\* repository_owner=acme\s+team ops\s+3600s/);
    const listed = JSON.parse((await admin.run(adminProject, ['org', 'oidc-policy', 'ls', 'acme', '--json'])).stdout) as Record<string, unknown>[];

    expect(listed).toEqual([
      expect.objectContaining({ issuer: https.issuer.url, audiences: [AUDIENCE], claims: { sub: 'repo:acme/infra:ref:refs/heads/*', repository_owner: 'acme' }, tokenKind: 'team', team: 'ops', maxLifetimeSeconds: 3600, createdBy: 'alice' }),
    ]);
  });

  it('logs in with `stackyard login --oidc-token`, and the team token can update the stack but not delete it', async () => {
    const ci = new CliSandbox();
    const token = await https.issuer.sign({ sub: SUB, aud: AUDIENCE, repository_owner: 'acme' });

    const login = await ciLogin(ci, serve.url, '--oidc-token', token, '--oidc-org', 'acme', '--oidc-team', 'ops');
    expect(login.status, login.stderr).toBe(0);
    expect(login.stdout).toMatch(/Logged in to .* as acme\.team\.ops \(token expires /);
    const credentials = JSON.parse(readFileSync(join(ci.home, 'credentials.json'), 'utf8')) as { accessTokens: Record<string, string>; accounts: Record<string, { tokenExpiresAt: string }> };
    const exchanged = credentials.accessTokens[serve.url]!;
    // The policy's 1 h caps the 2 h the CLI asks for by default.
    const lifetime = Date.parse(credentials.accounts[serve.url]!.tokenExpiresAt) - Date.now();
    expect(lifetime).toBeGreaterThan(3500_000);
    expect(lifetime).toBeLessThanOrEqual(3600_000);

    const whoami = await ci.run(ci.root, ['whoami']);
    expect(whoami.stdout.trim()).toBe('acme.team.ops');
    const update = await createAndStart(wire, exchanged, dev, 'update', { dryRun: false });
    expect(update.leaseToken).toMatch(/\S/);
    ok(await wire.call('POST', `${stackPath(dev)}/update/${update.updateId}/complete`, { auth: { updateToken: update.leaseToken }, body: { status: 'succeeded' } }));
    const removal = await wire.call('DELETE', stackPath(dev), { auth: { token: exchanged } });
    expect(removal.status).toBe(403);
    expect(JSON.parse(removal.text).message).toMatch(/delete needs 'admin'/);
    const tokens = ok(await wire.call('GET', '/api/orgs/acme/teams/ops/tokens', { auth: { token: aliceToken } })).tokens as { description: string; createdBy: string }[];
    expect(tokens).toEqual([expect.objectContaining({ description: `OIDC ${SUB}` })]);
  });

  it('reads the token from file:// with --cloud-url, honours --oidc-expiration, and refuses with the reason', async () => {
    const ci = new CliSandbox();
    const file = join(ci.root, 'id-token');
    writeFileSync(file, `${await https.issuer.sign({ sub: SUB, aud: AUDIENCE, repository_owner: 'acme' })}\n`);

    const login = await ciLogin(ci, '--cloud-url', serve.url, '--oidc-token', `file://${file}`, '--oidc-org', 'acme', '--oidc-team', 'ops', '--oidc-expiration', '10m');
    expect(login.status, login.stderr).toBe(0);
    const account = (JSON.parse(readFileSync(join(ci.home, 'credentials.json'), 'utf8')) as { accounts: Record<string, { tokenExpiresAt: string }> }).accounts[serve.url]!;
    expect(Date.parse(account.tokenExpiresAt) - Date.now()).toBeLessThanOrEqual(600_000);

    const stranger = await ciLogin(new CliSandbox(), serve.url, '--oidc-token', await https.issuer.sign({ sub: 'repo:evil/infra:ref:refs/heads/main', aud: AUDIENCE, repository_owner: 'acme' }), '--oidc-org', 'acme', '--oidc-team', 'ops');
    expect(stranger.status).not.toBe(0);
    expect(stranger.stderr).toContain("OIDC token exchange failed: no trust policy of 'acme' matches: claim 'sub' is 'repo:evil/infra:ref:refs/heads/main'");
    const local = await ciLogin(new CliSandbox(), '--local', '--oidc-token', 'x.y.z');
    expect(local.status).not.toBe(0);
    expect(local.stderr).toContain('oidc-token, oidc-org, oidc-team, oidc-user, and oidc-expiration flags are not supported for this type of backend');
    const orphan = await ciLogin(new CliSandbox(), serve.url, '--oidc-org', 'acme');
    expect(orphan.stderr).toContain('--oidc-org needs --oidc-token');
    const conflict = await ciLogin(new CliSandbox(), serve.url, '--oidc-token', await https.issuer.sign({ sub: SUB, aud: AUDIENCE }), '--oidc-org', 'globex');
    expect(conflict.stderr).toContain("--oidc-org 'globex' conflicts with the token's aud organization 'acme'");
  });

  it("answers the Pulumi CLI's request with apitype.TokenExchangeGrantResponse", async () => {
    const answer = await exchangeLikePulumi(await https.issuer.sign({ sub: SUB, aud: AUDIENCE, repository_owner: 'acme' }), 'team:ops', 900);

    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      access_token: expect.stringMatching(/^sy_/),
      issued_token_type: 'urn:pulumi:token-type:access_token:team',
      token_type: 'Bearer',
      expires_in: 900,
      scope: 'team:ops',
    });
    const user = ok(await wire.call('GET', '/api/user', { auth: { token: answer.json.access_token as string } }));
    expect(user.githubLogin).toBe('acme.team.ops');
  });

  it('follows a key rotation: a token signed with a new key is verified after the key set is fetched again', async () => {
    const fetchesBefore = https.issuer.fetches.get('/jwks') ?? 0;
    await https.issuer.rotate();

    const answer = await exchangeLikePulumi(await https.issuer.sign({ sub: SUB, aud: AUDIENCE, repository_owner: 'acme' }, { key: https.issuer.published[1]! }));

    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    expect(https.issuer.fetches.get('/jwks')).toBe(fetchesBefore + 1);
  });

  it('refuses every failed check with a 401 that names it, and records each as an authentication failure', async () => {
    const now = Math.floor(Date.now() / 1000);
    const good = { sub: SUB, aud: AUDIENCE, repository_owner: 'acme' };
    const failuresBefore = await authFailures();

    await refusedWith(await https.issuer.sign({ ...good, aud: 'urn:pulumi:org:other' }), /audience \(aud\) \["urn:pulumi:org:other"\] is not one it accepts/);
    await refusedWith(await https.issuer.sign({ ...good, iss: 'https://127.0.0.1:1' }), /issuer \(iss\) 'https:\/\/127.0.0.1:1' is not trusted/);
    await refusedWith(await https.issuer.sign({ ...good, sub: 'repo:acme/infra:ref:refs/tags/v1' }), /claim 'sub' is 'repo:acme\/infra:ref:refs\/tags\/v1', which does not match 'repo:acme\/infra:ref:refs\/heads\/\*'/);
    await refusedWith(await https.issuer.sign({ ...good, exp: now - 120, iat: now - 600, nbf: now - 600 }), /the ID token expired at .* \(exp; 60 s of clock skew allowed\)/);
    await refusedWith(await https.issuer.sign({ ...good, nbf: now + 600 }), /not valid before .* \(nbf; 60 s of clock skew allowed\)/);
    await refusedWith(await https.issuer.sign(good, { key: await newSigningKey('RS256', https.issuer.published[0]!.kid) }), /bad signature/);
    await refusedWith(await https.issuer.sign(good, { key: await newSigningKey('ES256', 'no-such-kid') }), /unknown key id \(kid\) 'no-such-kid'/);
    await refusedWith(https.issuer.unsigned(good), /alg 'none' is refused/);
    await refusedWith(await https.issuer.sign(good), /it issues team 'ops' tokens, not the requested organization token/, '');

    expect((await authFailures()) - failuresBefore).toBe(9);
    const tokens = ok(await wire.call('GET', '/api/orgs/acme/tokens', { auth: { token: aliceToken } })).tokens as unknown[];
    expect(tokens).toEqual([]);
  });

  /** Refusals recorded: refused sign-ins are tallied per source, route and minute, so the counts are summed. */
  async function authFailures(): Promise<number> {
    const log = ok(await wire.call('GET', '/api/orgs/acme/auditlogs?eventType=auth.failed&pageSize=1000', { auth: { token: aliceToken } })) as { auditLogEvents: { count?: number }[] };
    return log.auditLogEvents.reduce((sum, event) => sum + (event.count ?? 1), 0);
  }
});
