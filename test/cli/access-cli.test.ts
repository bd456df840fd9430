/**
 * The bundled CLI against `stackyard serve` (local storage) with several users: roles, teams, `stack init --teams`,
 * stack permissions, team and organization tokens, refusals as users read them, and `cancel` recording who
 * cancelled in `stack history` (needs `npm run build`).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, PulumiWire } from '../api/pulumi-wire.js';
import { startServe, type ServeProcess } from '../api/serve-process.js';
import { createAndStart, stackPath } from '../api/wire-fixtures.js';
import { CliSandbox, removeSandboxes, type CliResult } from './cli-harness.js';

describe('organization administration from the CLI', () => {
  let serve: ServeProcess;
  let wire: PulumiWire;
  const users: Record<string, CliSandbox> = {};
  const projects: Record<string, string> = {};
  const as = (who: string, ...args: string[]): Promise<CliResult> => users[who]!.run(projects[who]!, args);

  async function loginAs(who: string, token: string): Promise<void> {
    users[who] = new CliSandbox({ STACKYARD_ACCESS_TOKEN: token });
    projects[who] = users[who].project('demo', 'name: demo\nruntime: nodejs\n');
    const login = await as(who, 'login', serve.url);
    expect(login.status, login.stderr).toBe(0);
  }

  async function userToken(login: string): Promise<string> {
    const created = await as('admin', 'token', 'create', '--login', login, '--description', login);
    expect(created.status, created.stderr).toBe(0);
    return created.stdout.trim();
  }

  beforeAll(async () => {
    serve = await startServe({ storage: 'local', adminToken: `sy_${randomBytes(24).toString('hex')}` });
    wire = new PulumiWire(serve.url);
    await loginAs('admin', serve.adminToken);
    for (const args of [
      ['org', 'create', 'acme'],
      ['user', 'create', 'carol'],
      ['user', 'create', 'vic'],
      ['org', 'add-member', 'acme', 'carol'],
      ['org', 'add-member', 'acme', 'vic', '--role', 'viewer'],
      ['org', 'set-default-permission', 'acme', 'none'],
      ['team', 'create', 'acme', 'ops', '--description', 'on call'],
      ['team', 'add-member', 'acme', 'ops', 'carol'],
      ['stack', 'init', 'acme/dev', '--teams', 'ops'],
    ]) {
      const result = await as('admin', ...args);
      expect(result.status, `${args.join(' ')}: ${result.stderr}`).toBe(0);
    }
    await loginAs('carol', await userToken('carol'));
    await loginAs('vic', await userToken('vic'));
  });

  afterAll(async () => {
    wire?.close();
    await serve?.stop();
    removeSandboxes();
  });

  it('lists members, teams and the stack\'s permissions', async () => {
    const members = JSON.parse((await as('admin', 'org', 'member', 'ls', 'acme', '--json')).stdout) as unknown[];
    const teams = JSON.parse((await as('admin', 'team', 'ls', 'acme', '--json')).stdout) as unknown[];
    const grants = JSON.parse((await as('admin', 'stack', 'permission', 'ls', '--stack', 'acme/dev', '--json')).stdout) as unknown[];

    expect(members).toEqual(expect.arrayContaining([{ login: 'carol', role: 'member' }, { login: 'vic', role: 'viewer' }]));
    expect(teams).toEqual([{ name: 'ops', description: 'on call', members: ['carol'] }]);
    expect(grants).toEqual([{ subject: 'team', name: 'ops', permission: 'write' }]);
  });

  it('lets a team member write but not delete, and a viewer only read, each refusal saying what to do', async () => {
    const tagged = await as('carol', 'stack', 'tag', 'set', 'owner', 'carol', '--stack', 'acme/dev');
    const removed = await as('carol', 'stack', 'rm', 'acme/dev', '--yes');
    const viewerList = await as('vic', 'stack', 'ls', '--all', '--json');
    const viewerTag = await as('vic', 'stack', 'tag', 'set', 'owner', 'vic', '--stack', 'acme/dev');
    const viewerAdmin = await as('vic', 'team', 'create', 'acme', 'vics');

    expect(tagged.status, tagged.stderr).toBe(0);
    expect(removed.status).toBe(1);
    expect(removed.stderr).toContain("[403] 'carol' has 'write' permission on stack 'acme/demo/dev', and delete needs 'admin'");
    expect((JSON.parse(viewerList.stdout) as { name: string }[]).map((s) => s.name)).toContain('acme/demo/dev');
    expect(viewerTag.stderr).toContain("'vic' has 'read' permission on stack 'acme/demo/dev', and tags needs 'write'");
    expect(viewerAdmin.stderr).toContain("Only administrators of organization 'acme' may manage teams, and 'vic' is a viewer");
  });

  it('refuses a viewer\'s preview and up of a stack with secret config as updates needing write, not as decryption', async () => {
    // Arrange: encrypting reveals nothing, so the viewer may add a secret to the stack's config.
    const secret = await as('vic', 'config', 'set', '--secret', 'token', 's3cret', '--stack', 'acme/dev');

    // Act
    const up = await as('vic', 'up', '--yes', '--stack', 'acme/dev');
    const preview = await as('vic', 'preview', '--stack', 'acme/dev');

    // Assess
    expect(secret.status, secret.stderr).toBe(0);
    for (const refused of [up, preview]) {
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain("'vic' has 'read' permission on stack 'acme/demo/dev', and update needs 'write'");
      expect(refused.stderr).not.toContain('decrypt');
    }
  });

  it('gives, changes and removes a member\'s permission on one stack', async () => {
    const given = await as('admin', 'stack', 'permission', 'set', 'admin', '--user', 'vic', '--stack', 'acme/dev');
    const bad = await as('admin', 'stack', 'permission', 'set', 'owner', '--user', 'vic', '--stack', 'acme/dev');
    const removed = await as('admin', 'stack', 'permission', 'set', 'none', '--user', 'vic', '--stack', 'acme/dev');

    expect(given.stdout).toBe("'vic' now has 'admin' on 'acme/demo/dev'\n");
    expect(bad.stderr).toContain("invalid permission 'owner'");
    expect(removed.stdout).toBe("Removed the permission of 'vic' on 'acme/demo/dev'\n");
    expect(JSON.parse((await as('admin', 'stack', 'permission', 'ls', '--stack', 'acme/dev', '--json')).stdout)).toEqual([
      { subject: 'team', name: 'ops', permission: 'write' },
    ]);
  });

  it('creates team tokens that act with only the team\'s rights, lists them with their last use, and revokes them', async () => {
    const created = await as('admin', 'token', 'create', '--org', 'acme', '--team', 'ops', '--description', 'deploys');
    const teamToken = created.stdout.trim();
    await loginAs('ci', teamToken);
    const whoami = await as('ci', 'whoami', '--json');
    const history = await as('ci', 'stack', 'history', '--stack', 'acme/dev');
    const teamAdmin = await as('ci', 'team', 'ls', 'acme');
    const listed = JSON.parse((await as('admin', 'token', 'ls', '--org', 'acme', '--team', 'ops', '--json')).stdout) as Record<string, string>[];
    const revoked = await as('admin', 'token', 'revoke', listed[0]!.id!, '--org', 'acme', '--team', 'ops');
    const after = await as('ci', 'stack', 'history', '--stack', 'acme/dev');

    expect(created.stdout).toMatch(/^sy_\S+\n$/);
    expect(JSON.parse(whoami.stdout)).toMatchObject({ organizations: ['acme'] });
    expect(history.status, history.stderr).toBe(0);
    expect(teamAdmin.stderr).toContain('A team token cannot manage teams');
    expect(listed).toEqual([expect.objectContaining({ description: 'deploys', kind: 'team', team: 'ops', createdBy: 'admin' })]);
    expect(listed[0]).not.toHaveProperty('expiresAt');
    expect(listed[0]!.lastUsed).toMatch(/^\d{4}-/);
    expect(revoked.status, revoked.stderr).toBe(0);
    expect(after.stderr).toMatch(/\[401\]/);
  });

  it('records who cancelled an update, in stack history (text and --json) and in the API', async () => {
    // Arrange: carol's team may write; an update of the admin's is running.
    const running = await createAndStart(wire, serve.adminToken, { org: 'acme', project: 'demo', stack: 'dev' }, 'update', { dryRun: false });

    // Act
    const cancel = await as('carol', 'cancel', '--stack', 'acme/dev', '--yes');
    const text = await as('admin', 'stack', 'history', '--stack', 'acme/dev');
    const json = JSON.parse((await as('admin', 'stack', 'history', '--stack', 'acme/dev', '--json')).stdout) as Record<string, unknown>[];
    const api = ok(await wire.call('GET', `${stackPath({ org: 'acme', project: 'demo', stack: 'dev' })}/updates`, { auth: { token: serve.adminToken } }));

    // Assess
    expect(cancel.status, cancel.stderr).toBe(0);
    expect(text.stdout).toContain('Status: failed (cancelled by carol)');
    expect(json[0]).toMatchObject({ result: 'failed', cancelledBy: 'carol' });
    expect(api.updates[0]).toMatchObject({ updateID: running.updateId, result: 'failed', requestedBy: 'admin', cancelledBy: 'carol' });
  });

  it('shows the audit log to organization admins only, with who did what from where', async () => {
    const listed = await as('admin', 'audit', 'ls', '--org', 'acme', '--since', '1h', '--json');
    const text = await as('admin', 'audit', 'ls', '--org', 'acme', '--event', 'update.cancelled');
    const byCarol = JSON.parse((await as('admin', 'audit', 'ls', '--org', 'acme', '--user', 'carol', '--json')).stdout) as Record<string, string>[];
    const refused = await as('carol', 'audit', 'ls', '--org', 'acme');
    const api = ok(await wire.call('GET', '/api/orgs/acme/auditlogs?eventType=stack.created', { auth: { token: serve.adminToken } }));
    const denials = ok(await wire.call('GET', '/api/orgs/acme/auditlogs?eventType=authz.denied&user=carol', { auth: { token: serve.adminToken } }));

    const events = (JSON.parse(listed.stdout) as { event: string }[]).map((e) => e.event);
    expect(events).toEqual(expect.arrayContaining(['member.added', 'team.created', 'stack.created', 'stack.permission-changed', 'token.created', 'update.cancelled']));
    expect(text.stdout).toMatch(/update\.cancelled +carol +127\.0\.0\.1 +cancelled update \S+ of acme\/demo\/dev \(started by admin\)/);
    // Her refusal by an earlier test (a member may not delete a stack) is in the log too.
    expect(byCarol.map((e) => e.event).sort()).toEqual(['authz.denied', 'stack.tags-changed', 'update.cancelled']);
    expect(byCarol[0]).toMatchObject({ actor: 'carol', sourceIp: '127.0.0.1', userAgent: expect.stringMatching(/^stackyard-cli\/1 /) });
    expect(refused.stderr).toContain("Only administrators of organization 'acme' may read audit log, and 'carol' is a member");
    expect(api.auditLogEvents).toEqual([expect.objectContaining({ event: 'stack.created', user: expect.objectContaining({ githubLogin: 'admin' }), target: 'acme/demo/dev' })]);
    expect((denials.auditLogEvents as { target: string }[])[0]).toMatchObject({ target: 'read-audit-log', sourceIP: '127.0.0.1' });
  });

  it('shows refused sign-ins from one source at one route in one minute as one tally, with its count', async () => {
    // Arrange: acme trusts an issuer, so refused token exchanges naming acme go to its log.
    ok(await wire.call('POST', '/api/orgs/acme/oidc/policies', {
      auth: { token: serve.adminToken },
      body: { issuer: 'https://issuer.stackyard.invalid', claims: { sub: 'repo:*' }, tokenKind: 'organization' },
    }), 201);
    const exchange = new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      requested_token_type: 'urn:pulumi:token-type:access_token:organization',
      audience: 'urn:pulumi:org:acme',
      subject_token: 'not-a-jwt',
    }).toString();

    // Act: three refusals in a row, then the log as the CLI and the API show it.
    for (let i = 0; i < 3; i += 1) {
      const refused = await wire.call('POST', '/api/oauth/token', { body: Buffer.from(exchange), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(refused.status).toBe(401);
    }
    const text = await as('admin', 'audit', 'ls', '--org', 'acme', '--event', 'auth.failed');
    const json = JSON.parse((await as('admin', 'audit', 'ls', '--org', 'acme', '--event', 'auth.failed', '--json')).stdout) as Record<string, unknown>[];
    const api = ok(await wire.call('GET', '/api/orgs/acme/auditlogs?eventType=auth.failed', { auth: { token: serve.adminToken } }));

    // Assess: one record per minute (the three may straddle a minute's end: then two, counting three together).
    const counts = json.map((e) => e.count as number);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(3);
    expect(json.length).toBeLessThanOrEqual(2);
    expect(json[0]).toMatchObject({ route: 'POST /api/oauth/token', sourceIp: '127.0.0.1', lastSeen: expect.any(String) });
    expect(text.stdout).toMatch(/auth\.failed +oidc +127\.0\.0\.1 +(3 times|2 times|once) at POST \/api\/oauth\/token/);
    expect((api.auditLogEvents as Record<string, unknown>[])[0]).toMatchObject({ count: counts[0], route: 'POST /api/oauth/token', lastSeen: expect.any(Number) });
  });

  it('records an update completed with its update token once, as the user who started it', async () => {
    // Arrange
    const ref = { org: 'acme', project: 'demo', stack: 'dev' };
    const { updateId, leaseToken } = await createAndStart(wire, serve.adminToken, ref, 'update', { dryRun: false });

    // Act: the completion, and a retry of it with the same token (answered as the first was).
    for (let i = 0; i < 2; i += 1) {
      ok(await wire.call('POST', `${stackPath(ref)}/update/${updateId}/complete`, { auth: { updateToken: leaseToken }, body: { status: 'succeeded' } }));
    }
    const log = ok(await wire.call('GET', '/api/orgs/acme/auditlogs?eventType=update.completed', { auth: { token: serve.adminToken } }));

    // Assess
    const mine = (log.auditLogEvents as { description: string }[]).filter((e) => e.description.includes(updateId));
    expect(mine).toEqual([
      expect.objectContaining({ user: expect.objectContaining({ githubLogin: 'admin' }), tokenID: expect.stringMatching(/^update-[0-9a-f]{16}$/), sourceIP: '127.0.0.1', description: `update ${updateId} of acme/demo/dev succeeded` }),
    ]);
    expect(JSON.stringify(log)).not.toContain(leaseToken);
  });
});
