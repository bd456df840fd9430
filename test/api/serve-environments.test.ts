/**
 * The esc CLI's environment requests, replayed against `stackyard serve` on both storage modes exactly as its client
 * sends them (pulumi/esc `cmd/esc/cli/client/client.go`: its headers, the etag it read sent back in `ETag`, raw YAML
 * bodies, Go's query encoding), in the order its commands make them: `env init`, `env set` (get, then save with the
 * etag), `env get` (definition, then `yaml/check`), `open` (open, then read the session), `env version history`,
 * `env version tag`, `env version rollback` (read an old revision, save it again), `env clone`, `env ls`, `env rm`;
 * and the `pulumi` CLI's opening of a stack's environments (pulumi/pulumi `pkg/cmd/pulumi/config/io.go` openStackEnv:
 * `yaml/open` of the stack's `environment:` as YAML, then `GET yaml/open/{id}`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesContain } from '../support/files-contain.js';
import { startAwsStandIns, type AwsStandIns } from '../support/aws-stand-ins.js';
import { failed, ok, PulumiWire, type WireResponse } from './pulumi-wire.js';
import { startServe, type ServeProcess } from './serve-process.js';

/** The headers every call of ESC's client carries (httpCall): JSON content type even for YAML, its own Accept. */
const ESC_HEADERS = { accept: 'application/vnd.pulumi+8', 'content-type': 'application/json', 'user-agent': 'esc-sdk/1 (v0.14.0; linux)' };
const ENV = '/api/esc/environments/acme/app/dev';
const SECRET = 'hunter2-never-at-rest';

describe.each(['local', 'aws'] as const)('the esc CLI against `stackyard serve` (%s storage)', (storage) => {
  let standIns: AwsStandIns | undefined;
  let serve: ServeProcess;
  let wire: PulumiWire;
  const esc = (method: string, path: string, body?: string | object, headers: Record<string, string> = {}): Promise<WireResponse> =>
    wire.call(method, path, {
      auth: { token: serve.adminToken },
      headers: { ...ESC_HEADERS, ...headers },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? Buffer.from(body, 'utf8') : body }),
      gzip: false,
    });

  beforeAll(async () => {
    if (storage === 'aws') standIns = await startAwsStandIns();
    serve = await startServe({ storage, ...(standIns ? { env: standIns.env } : {}) });
    wire = new PulumiWire(serve.url);
    ok(await wire.call('POST', '/api/orgs', { auth: { token: serve.adminToken }, body: { name: 'acme' } }), 201);
  });

  afterAll(async () => {
    wire?.close();
    await serve?.stop();
    await standIns?.stop();
  });

  it('init, set with the etag, get, open, history, tag, rollback, clone, ls and rm', async () => {
    // esc login / env init
    expect(ok(await esc('GET', '/api/user')).githubLogin).toBe('admin');
    ok(await esc('POST', '/api/esc/environments/acme', { project: 'app', name: 'dev' }));
    failed(await esc('POST', '/api/esc/environments/acme', { project: 'app', name: 'dev' }), 409);
    const created = await esc('GET', ENV);
    expect([created.status, created.headers['pulumi-esc-revision'], created.text]).toEqual([200, '1', '']);

    // env set acme/app/dev password --secret …: read with its etag, save with it (in `ETag`, as ESC's client sends it)
    const yaml = `values:\n  # the database\n  password:\n    fn::secret: ${SECRET}\n  url: https://\${context.pulumi.user.login}.example\n`;
    const saved = await esc('PATCH', ENV, yaml, { etag: String(created.headers.etag) });
    expect([saved.status, saved.headers['pulumi-esc-revision']]).toEqual([200, '2']);
    failed(await esc('PATCH', ENV, 'values:\n  late: true\n', { etag: String(created.headers.etag) }), 409);
    const broken = await esc('PATCH', ENV, 'values:\n  a: ${missing}\n  b: [\n');
    expect(failed(broken, 400)).toMatch(/error/);
    expect(broken.json.diagnostics.length).toBeGreaterThan(0);
    expect(broken.json.diagnostics[0]).toMatchObject({ summary: expect.any(String), severity: 'error' });

    // env get (definition, then yaml/check of it) and env get --show-secrets (decrypt)
    const stored = await esc('GET', ENV);
    expect([stored.headers['pulumi-esc-revision'], stored.headers['content-type']]).toEqual(['2', 'application/x-yaml']);
    expect(stored.text).toContain('# the database');
    expect(stored.text).toMatch(/ciphertext: \S+/);
    expect(stored.text).not.toContain(SECRET);
    const checked = ok(await esc('POST', '/api/esc/environments/acme/yaml/check?showSecrets=false', stored.text));
    expect(checked.properties.url.value).toBe('https://admin.example');
    expect((await esc('GET', `${ENV}/decrypt`)).text).toContain(`fn::secret: ${SECRET}`);

    // open (open, then read the session; one property)
    const { id } = ok(await esc('POST', `${ENV}/open?duration=2h0m0s`));
    const opened = ok(await esc('GET', `${ENV}/open/${id}`));
    expect(opened.properties.password).toMatchObject({ value: SECRET, secret: true });
    expect(ok(await esc('GET', `${ENV}/open/${id}?property=url`)).value).toBe('https://admin.example');
    failed(await esc('GET', `${ENV}/open/${'0'.repeat(32)}`), 404);
    failed(await esc('POST', `${ENV}/open?duration=forever`), 400);

    // env version history, env version tag, env get @tag
    // `esc env version history` pages from before=0 (the latest) with count=500 until a page is empty.
    const history = ok(await esc('GET', `${ENV}/versions?before=0&count=500`));
    expect(ok(await esc('GET', `${ENV}/versions?before=1&count=500`))).toEqual([]);
    expect(history.map((r: { number: number; tags: string[] }) => [r.number, r.tags])).toEqual([
      [2, ['latest']],
      [1, []],
    ]);
    expect(history[0].creatorLogin).toBe('admin');
    expect(ok(await esc('GET', `${ENV}/versions?before=3&count=1`)).map((r: { number: number }) => r.number)).toEqual([2]);
    // `esc env version tag`: move the tag, and create it when that answers 404
    failed(await esc('PATCH', `${ENV}/versions/tags/stable`, { revision: 2 }), 404);
    ok(await esc('POST', `${ENV}/versions/tags`, { name: 'stable', revision: 2 }), 204);
    expect(ok(await esc('GET', `${ENV}/versions/tags/stable`))).toMatchObject({ name: 'stable', revision: 2, editorLogin: 'admin' });
    expect((await esc('GET', `${ENV}/versions/stable`)).headers['pulumi-esc-revision']).toBe('2');
    expect(ok(await esc('GET', `${ENV}/versions/tags`)).tags.map((t: { name: string }) => t.name)).toEqual(['latest', 'stable']);

    // env version rollback acme/app/dev@1: read revision 1 (as stored), save it again without an etag
    const first = await esc('GET', `${ENV}/versions/1`);
    const rolledBack = await esc('PATCH', ENV, first.text);
    expect(rolledBack.headers['pulumi-esc-revision']).toBe('3');
    expect((await esc('GET', ENV)).text).toBe('');
    ok(await esc('PATCH', `${ENV}/versions/tags/stable`, { revision: 3 }), 204);
    // A rollback to a revision with secrets saves their ciphertext again, which still opens.
    ok(await esc('PATCH', ENV, (await esc('GET', `${ENV}/versions/2`)).text));
    expect((await esc('GET', `${ENV}/decrypt`)).text).toContain(SECRET);

    // env clone, env ls, the preview routes, env rm
    ok(await esc('POST', `${ENV}/clone`, { project: 'app', name: 'dev-copy', preserveHistory: true }), 204);
    expect((await esc('GET', '/api/esc/environments/acme/app/dev-copy/decrypt')).text).toContain(SECRET);
    ok(await esc('POST', '/api/preview/environments/acme/legacy'));
    expect(ok(await esc('GET', '/api/esc/environments/acme')).environments.map((e: { project: string; name: string }) => `${e.project}/${e.name}`)).toEqual([
      'app/dev',
      'app/dev-copy',
      'default/legacy',
    ]);
    expect(ok(await esc('GET', '/api/esc/environments')).environments.length).toBe(3);
    expect((await esc('GET', '/api/preview/environments/acme/legacy')).status).toBe(200);
    ok(await esc('DELETE', ENV));
    failed(await esc('GET', ENV), 404);

    const audit = ok(await wire.call('GET', '/api/orgs/acme/auditlogs?pageSize=100', { auth: { token: serve.adminToken } }));
    const events = new Set(audit.auditLogEvents.map((e: { event: string }) => e.event));
    for (const event of ['environment.created', 'environment.updated', 'environment.opened', 'environment.secrets-revealed', 'environment.cloned', 'environment.deleted']) {
      expect(events.has(event), event).toBe(true);
    }
    if (storage === 'local') expect(await filesContain(serve.dataDir, SECRET)).toBe(false);
  });

  it("opens a stack's environments as the pulumi CLI does: yaml/open of its imports and values, then the session", async () => {
    // Two environments a stack imports (`environment: [a, b]` in Pulumi.<stack>.yaml): a secret in `a`, `b` overrides.
    for (const name of ['a', 'b']) ok(await esc('POST', '/api/esc/environments/acme', { project: 'default', name }));
    ok(await esc('PATCH', '/api/esc/environments/acme/default/a', `values:\n  pulumiConfig:\n    token:\n      fn::secret: ${SECRET}\n    region: us-east-1\n`));
    ok(await esc('PATCH', '/api/esc/environments/acme/default/b', 'values:\n  pulumiConfig:\n    region: eu-west-1\n  environmentVariables:\n    STAGE: b\n'));

    // pulumi/pulumi openStackEnv: EnvironmentBytes() (JSON for a list), OpenYAMLEnvironment for 2h, then GetAnonymousOpenEnvironment.
    const { id } = ok(await esc('POST', '/api/esc/environments/acme/yaml/open?duration=2h0m0s', '{"imports":["a","b"]}'));
    const opened = ok(await esc('GET', `/api/esc/environments/acme/yaml/open/${id}`));
    expect(opened.properties.pulumiConfig.value.token).toMatchObject({ value: SECRET, secret: true });
    expect(opened.properties.pulumiConfig.value.region.value).toBe('eu-west-1');
    expect(opened.properties.environmentVariables.value.STAGE.value).toBe('b');
    // Inline YAML (`environment: {imports: [a], values: …}`): the stack's own values win over its imports'.
    const inline = 'imports:\n  - a\nvalues:\n  pulumiConfig:\n    region: ap-south-1\n';
    const own = ok(await esc('GET', `/api/esc/environments/acme/yaml/open/${ok(await esc('POST', '/api/esc/environments/acme/yaml/open?duration=2h0m0s', inline)).id}`));
    expect(own.properties.pulumiConfig.value.region.value).toBe('ap-south-1');
    expect(own.properties.pulumiConfig.value.token.secret).toBe(true);

    // Broken YAML: ESC's 400 with diagnostics and their ranges, which the client returns as diagnostics.
    const broken = await esc('POST', '/api/esc/environments/acme/yaml/open?duration=2h0m0s', 'values:\n  a: ${missing}\n');
    failed(broken, 400);
    expect(broken.json.diagnostics[0]).toMatchObject({ severity: 'error', summary: expect.stringContaining('missing'), range: { begin: { line: 2 } } });

    // A viewer may read `a` but not open it: its import is refused, and no session is made.
    ok(await esc('POST', '/api/users', { login: 'vera' }), 201);
    ok(await esc('POST', '/api/orgs/acme/members', { login: 'vera', role: 'viewer' }), 201);
    const vera = ok(await esc('POST', '/api/user/tokens', { login: 'vera', description: 'viewer' }), 201).tokenValue as string;
    const refused = await wire.call('POST', '/api/esc/environments/acme/yaml/open?duration=2h0m0s', {
      auth: { token: vera },
      headers: ESC_HEADERS,
      body: Buffer.from('{"imports":["a"]}', 'utf8'),
      gzip: false,
    });
    expect(failed(refused, 400)).toMatch(/vera.*may not open.*default\/a/);
    expect(refused.json.diagnostics[0].summary).toMatch(/may not open/);
    // Another caller cannot read the admin's session; an unknown id is not found; overrides are refused, not ignored.
    failed(await wire.call('GET', `/api/esc/environments/acme/yaml/open/${id}`, { auth: { token: vera }, headers: ESC_HEADERS, gzip: false }), 404);
    failed(await esc('GET', `/api/esc/environments/acme/yaml/open/${'0'.repeat(32)}`), 404);
    failed(await esc('GET', `/api/esc/environments/acme/app/dev/open/${id}`), 404);
    const overridden = await esc('POST', `/api/esc/environments/acme/yaml/open?duration=2h0m0s&environmentOverrides=${Buffer.from('{"a":"b"}').toString('base64url')}`, '{"imports":["a"]}');
    expect(failed(overridden, 400)).toMatch(/override-env/);

    const audit = ok(await wire.call('GET', '/api/orgs/acme/auditlogs?pageSize=100', { auth: { token: serve.adminToken } }));
    const descriptions = audit.auditLogEvents.filter((e: { event: string }) => e.event === 'environment.opened').map((e: { description: string }) => e.description);
    expect(descriptions).toContain('opened an anonymous environment importing a, b');
    if (storage === 'local') expect(await filesContain(serve.dataDir, SECRET)).toBe(false);
  });

  it('refuses bad input with a clear 4xx and changes nothing', async () => {
    ok(await esc('POST', '/api/esc/environments/acme', { project: 'app', name: 'strict' }));
    const path = '/api/esc/environments/acme/app/strict';
    const before = (await esc('GET', path)).headers['pulumi-esc-revision'];

    expect(failed(await esc('POST', '/api/esc/environments/acme', { project: 'app', name: 'open' }), 400)).toMatch(/Invalid environment name/);
    expect(failed(await esc('POST', '/api/esc/environments/acme', { project: 'app' }), 400)).toMatch(/name/);
    failed(await esc('PATCH', path, Buffer.from([0xff, 0xfe, 0x00]).toString('latin1')), 400);
    failed(await esc('PATCH', path, 'values:\n  x:\n    fn::secret:\n      ciphertext: ZXNjeAAAAAFub3RvdXJz\n'), 400);
    failed(await esc('PATCH', path, 'values: {a: 1}\n', { etag: '"garbage"' }), 409);
    failed(await esc('POST', `${path}/versions/tags`, { name: 'latest' }), 400);
    failed(await esc('POST', `${path}/versions/tags`, { name: 'later', revision: 7 }), 404);
    failed(await esc('GET', `${path}/versions/9`), 404);
    failed(await esc('GET', '/api/esc/environments/globex/app/strict'), 404);

    expect((await esc('GET', path)).headers['pulumi-esc-revision']).toBe(before);
    expect(ok(await esc('GET', `${path}/versions/tags`)).tags.map((t: { name: string }) => t.name)).toEqual(['latest']);
  });
});
