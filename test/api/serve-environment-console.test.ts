/**
 * The console's reads of environments (routes/environment-console.ts) against `stackyard serve` on both storage modes:
 * the organization's list with each environment's latest revision and author, two revisions compared with secrets
 * redacted, and the audit entries of one environment (who opened, saved or revealed which revision) — each only for
 * callers who may read the environment.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAwsStandIns, type AwsStandIns } from '../support/aws-stand-ins.js';
import { failed, ok, PulumiWire, type WireResponse } from './pulumi-wire.js';
import { startServe, type ServeProcess } from './serve-process.js';

const SECRET = 'hunter2-console-never-shown';
const ENV = '/api/esc/environments/acme/app/dev';
const CONSOLE = '/api/console/environments/acme';

describe.each(['local', 'aws'] as const)("the console's environment routes on `stackyard serve` (%s storage)", (storage) => {
  let standIns: AwsStandIns | undefined;
  let serve: ServeProcess;
  let wire: PulumiWire;
  const tokens: Record<string, string> = {};
  const as = (who: string, method: string, path: string, body?: string | object): Promise<WireResponse> =>
    wire.call(method, path, {
      auth: { token: who === 'admin' ? serve.adminToken : tokens[who]! },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? Buffer.from(body, 'utf8') : body }),
      gzip: false,
    });
  const save = async (path: string, yaml: string) => ok(await as('admin', 'PATCH', path, yaml));

  beforeAll(async () => {
    if (storage === 'aws') standIns = await startAwsStandIns();
    serve = await startServe({ storage, ...(standIns ? { env: standIns.env } : {}) });
    wire = new PulumiWire(serve.url);
    for (const name of ['acme', 'globex']) ok(await as('admin', 'POST', '/api/orgs', { name }), 201);
    ok(await as('admin', 'POST', '/api/users', { login: 'bob' }), 201);
    ok(await as('admin', 'POST', '/api/orgs/globex/members', { login: 'bob', role: 'admin' }), 201);
    tokens.bob = ok(await as('admin', 'POST', '/api/user/tokens', { login: 'bob', description: 'outsider' }), 201).tokenValue;
    ok(await as('admin', 'POST', '/api/orgs/acme/teams', { name: 'ci' }), 201);
    tokens.ci = ok(await as('admin', 'POST', '/api/orgs/acme/teams/ci/tokens', { description: 'ci' }), 201).tokenValue;

    // acme/app/dev: revision 2 with a secret, 3 changes a value; then an open and a reveal of revision 3.
    ok(await as('admin', 'POST', '/api/esc/environments/acme', { project: 'app', name: 'dev' }));
    await save(ENV, `values:\n  password:\n    fn::secret: ${SECRET}\n  tier: silver\n`);
    const stored = await as('admin', 'GET', ENV);
    await save(ENV, stored.text.replace('tier: silver', 'tier: gold'));
    ok(await as('admin', 'POST', `${ENV}/open`));
    ok(await as('admin', 'GET', `${ENV}/versions/2/decrypt`));
    // acme/app/prod, opened too: none of its entries are dev's.
    ok(await as('admin', 'POST', '/api/esc/environments/acme', { project: 'app', name: 'prod' }));
    await save('/api/esc/environments/acme/app/prod', 'values:\n  tier: platinum\n');
    ok(await as('admin', 'POST', '/api/esc/environments/acme/app/prod/open'));
  });

  afterAll(async () => {
    wire?.close();
    await serve?.stop();
    await standIns?.stop();
  });

  it("lists the organization's environments with their latest revision, when and by whom it was saved", async () => {
    const listed = ok(await as('admin', 'GET', CONSOLE));

    expect(listed.environments.map((e: { project: string; name: string }) => `${e.project}/${e.name}`)).toEqual(['app/dev', 'app/prod']);
    expect(listed.environments[0]).toMatchObject({ org: 'acme', revision: 3, modifiedBy: 'admin', modifiedAt: expect.any(Number), createdAt: expect.any(Number) });
    expect(listed.environments[1]).toMatchObject({ revision: 2, modifiedBy: 'admin' });
  });

  it('compares two revisions with every secret redacted, by number or tag', async () => {
    const diff = ok(await as('admin', 'GET', `${CONSOLE}/app/dev/diff?from=2&to=3`));

    expect(diff).toMatchObject({ from: 2, to: 3 });
    expect(diff.diff).toMatch(/^--- acme\/app\/dev@2\n\+\+\+ acme\/app\/dev@3\n/);
    expect(diff.diff).toContain('\n-  tier: silver\n+  tier: gold\n');
    // The secret is the same sealed value in both: an unchanged line, shown by its fingerprint only.
    expect(diff.diff).toMatch(/\n {5}fn::secret: "\[secret [0-9a-f]{8}\]"\n/);
    expect(diff.diff).not.toContain(SECRET);
    expect(diff.diff).not.toContain('ciphertext');
    expect(ok(await as('admin', 'GET', `${CONSOLE}/app/dev/diff?from=1&to=latest`)).to).toBe(3);
    expect(ok(await as('admin', 'GET', `${CONSOLE}/app/dev/diff?from=3&to=3`)).diff).toBe('');
    failed(await as('admin', 'GET', `${CONSOLE}/app/dev/diff?from=9&to=3`), 404);
  });

  it('lists who opened, saved and revealed which revision of one environment, newest first, and nothing of another', async () => {
    const audit = ok(await as('admin', 'GET', `${CONSOLE}/app/dev/audit`));

    const seen = audit.entries.map((e: { event: string; user: string; revision?: number }) => [e.event, e.user, e.revision]);
    expect(seen).toEqual([
      ['environment.secrets-revealed', 'admin', 2],
      ['environment.opened', 'admin', 3],
      ['environment.updated', 'admin', 3],
      ['environment.updated', 'admin', 2],
    ]);
    expect(audit.entries[0]).toMatchObject({ time: expect.any(Number), description: expect.stringContaining('acme/app/dev') });
    const first = ok(await as('admin', 'GET', `${CONSOLE}/app/dev/audit?pageSize=1`));
    const next = ok(await as('admin', 'GET', `${CONSOLE}/app/dev/audit?pageSize=1&continuationToken=${first.continuationToken}`));
    expect([first.entries[0].event, next.entries[0].event]).toEqual(['environment.secrets-revealed', 'environment.opened']);
  });

  it('keeps the entries of a deleted environment from the one created again under its name', async () => {
    ok(await as('admin', 'POST', '/api/esc/environments/acme', { project: 'app', name: 'again' }));
    await save('/api/esc/environments/acme/app/again', 'values:\n  tier: bronze\n');
    ok(await as('admin', 'POST', '/api/esc/environments/acme/app/again/open'));
    ok(await as('admin', 'DELETE', '/api/esc/environments/acme/app/again'));
    ok(await as('admin', 'POST', '/api/esc/environments/acme', { project: 'app', name: 'again' }));

    expect(ok(await as('admin', 'GET', `${CONSOLE}/app/again/audit`)).entries).toEqual([]);
  });

  it('shows an environment only to callers who may read it: not found otherwise, and not listed', async () => {
    for (const path of [`${CONSOLE}/app/dev/audit`, `${CONSOLE}/app/dev/diff?from=1&to=2`]) {
      failed(await as('ci', 'GET', path), 404);
      failed(await as('bob', 'GET', path), 404);
    }
    expect(ok(await as('ci', 'GET', CONSOLE)).environments).toEqual([]);
    failed(await as('bob', 'GET', CONSOLE), 404);

    ok(await as('admin', 'PATCH', `${ENV}/permissions`, { team: 'ci', permission: 'read' }));

    expect(ok(await as('ci', 'GET', `${CONSOLE}/app/dev/audit`)).entries.length).toBeGreaterThan(0);
    expect(ok(await as('ci', 'GET', CONSOLE)).environments.map((e: { name: string }) => e.name)).toEqual(['dev']);
  });
});
