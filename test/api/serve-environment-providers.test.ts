/**
 * Providers in the environment service, end to end: `stackyard serve` (a real process) signs an ID token as the
 * OIDC issuer, the STS stand-in (another process) fetches serve's discovery document and key set over loopback
 * HTTP, verifies the token and its trust policy and issues credentials, and the Secrets Manager and SSM stand-ins
 * accept only requests SigV4-signed with them. Then the refusals: a role whose trust policy does not match. On both
 * storage modes: on `aws` the issuer's key is sealed by the KMS stand-in and kept in s3rver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesContain } from '../support/files-contain.js';
import { startAwsIdentityStandIn, type AwsIdentityStandIn } from '../support/aws-identity-server.js';
import { startAwsStandIns, type AwsStandIns } from '../support/aws-stand-ins.js';
import { failed, ok, PulumiWire, type WireResponse } from './pulumi-wire.js';
import { startServe, type ServeProcess } from './serve-process.js';

const ESC = '/api/esc/environments/acme';
const ROLE = 'arn:aws:iam::000000000000:role/esc-reader';
const NARROW_ROLE = 'arn:aws:iam::000000000000:role/esc-dev-only';
const SHARED_LOGIN_ROLE = 'arn:aws:iam::000000000000:role/esc-shared-login';
/** The custom subject (subjectAttributes) the shared login's role trusts: the login's own environment, any user. */
const SHARED_LOGIN_SUBJECT = 'pulumi:environments:pulumi.organization.login:acme:currentEnvironment.name:shared/aws:pulumi.user.login:*';
const DB_PASSWORD = 'db-password-from-secrets-manager';
const API_TOKEN = 'api-token-from-parameter-store';

function definition(roleArn: string): string {
  return [
    'values:',
    '  aws:',
    '    login:',
    '      fn::open::aws-login:',
    '        oidc:',
    `          roleArn: ${roleArn}`,
    '          sessionName: stackyard-e2e',
    '          duration: 30m',
    '    secrets:',
    '      fn::open::aws-secrets:',
    '        region: us-east-1',
    '        login: ${aws.login}',
    '        get:',
    '          db:',
    '            secretId: app/db-password',
    '    params:',
    '      fn::open::aws-parameter-store:',
    '        region: us-east-1',
    '        login: ${aws.login}',
    '        get:',
    '          endpoint:',
    '            name: /app/endpoint',
    '          token:',
    '            name: /app/token',
    '            decrypt: true',
    '  environmentVariables:',
    '    AWS_ACCESS_KEY_ID: ${aws.login.accessKeyId}',
    '',
  ].join('\n');
}

describe.each(['local', 'aws'] as const)('environment providers through `stackyard serve` (%s storage) and the AWS stand-ins', (storage) => {
  let storageStandIns: AwsStandIns | undefined;
  let aws: AwsIdentityStandIn;
  let serve: ServeProcess;
  let wire: PulumiWire;
  let issuer: string;
  const call = (method: string, path: string, body?: string | object): Promise<WireResponse> =>
    wire.call(method, path, {
      auth: { token: serve.adminToken },
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? Buffer.from(body, 'utf8') : body }),
      gzip: false,
    });

  beforeAll(async () => {
    if (storage === 'aws') storageStandIns = await startAwsStandIns();
    aws = await startAwsIdentityStandIn({ roles: [], secrets: {}, parameters: {} });
    serve = await startServe({ storage, env: { ...storageStandIns?.env, ...aws.env, AWS_REGION: 'us-east-1' } });
    wire = new PulumiWire(serve.url);
    issuer = ok(await wire.call('GET', '/oidc/.well-known/openid-configuration', { gzip: false })).issuer;
    await aws.configure({
      roles: [
        { roleArn: ROLE, issuer, audience: 'aws:acme', subject: 'pulumi:environments:org:acme:env:app/*' },
        { roleArn: NARROW_ROLE, issuer, audience: 'aws:acme', subject: 'pulumi:environments:org:acme:env:app/dev' },
        { roleArn: SHARED_LOGIN_ROLE, issuer, audience: 'aws:acme', subject: SHARED_LOGIN_SUBJECT },
      ],
      secrets: { 'app/db-password': DB_PASSWORD },
      parameters: { '/app/endpoint': { type: 'String', value: 'https://db.internal' }, '/app/token': { type: 'SecureString', value: API_TOKEN } },
    });
    ok(await call('POST', '/api/orgs', { name: 'acme' }), 201);
  });

  afterAll(async () => {
    wire?.close();
    await serve?.stop();
    await aws?.stop();
    await storageStandIns?.stop();
  });

  it('publishes its issuer: the discovery document names itself and an EC signing key in its JWKS', async () => {
    const keys = ok(await wire.call('GET', '/oidc/.well-known/jwks', { gzip: false })).keys;

    expect(issuer).toBe(`${serve.url.replace(/\/+$/, '')}/oidc`);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', kid: expect.any(String) });
    expect(keys[0].d).toBeUndefined();
  });

  it('opens an environment that logs in with OIDC and reads a secret and parameters, secrets secret, nothing at rest', async () => {
    ok(await call('POST', ESC, { project: 'app', name: 'prod' }));
    ok(await call('PATCH', `${ESC}/app/prod`, definition(ROLE)));

    const { id } = ok(await call('POST', `${ESC}/app/prod/open`));
    const opened = ok(await call('GET', `${ESC}/app/prod/open/${id}`)).properties;

    const login = opened.aws.value.login.value;
    expect(login.accessKeyId).toMatchObject({ value: expect.stringMatching(/^ASIA/) });
    expect(login.accessKeyId.secret).toBeUndefined();
    expect(login.secretAccessKey).toMatchObject({ value: expect.any(String), secret: true });
    expect(login.sessionToken).toMatchObject({ value: expect.any(String), secret: true });
    expect(opened.aws.value.secrets.value.db).toMatchObject({ value: DB_PASSWORD, secret: true });
    expect(opened.aws.value.params.value.endpoint).toMatchObject({ value: 'https://db.internal' });
    expect(opened.aws.value.params.value.endpoint.secret).toBeUndefined();
    expect(opened.aws.value.params.value.token).toMatchObject({ value: API_TOKEN, secret: true });
    expect(opened.environmentVariables.value.AWS_ACCESS_KEY_ID.value).toBe(login.accessKeyId.value);
    expect(await filesContain(serve.dataDir, DB_PASSWORD)).toBe(false);
    expect(await filesContain(serve.dataDir, API_TOKEN)).toBe(false);
    expect(await filesContain(serve.dataDir, login.secretAccessKey.value)).toBe(false);
  });

  it('refuses an open whose token the role does not trust, naming the role, with no partial result', async () => {
    ok(await call('POST', ESC, { project: 'app', name: 'staging' }));
    ok(await call('PATCH', `${ESC}/app/staging`, definition(NARROW_ROLE)));

    const refused = await call('POST', `${ESC}/app/staging/open`);

    const message = failed(refused, 400);
    expect(message).toContain(`could not be opened: aws-login: could not assume role '${NARROW_ROLE}'`);
    const summaries = (refused.json.diagnostics as { summary: string }[]).map((d) => d.summary);
    expect(summaries).toContainEqual(expect.stringContaining(`could not assume role '${NARROW_ROLE}'`));
    expect(summaries).toContainEqual(expect.stringContaining('AccessDenied'));
    expect(summaries).toContainEqual(expect.stringContaining("sub 'pulumi:environments:org:acme:env:app/staging'"));
    expect(JSON.stringify(refused.json)).not.toContain(DB_PASSWORD);
  });

  it('signs the subject subjectAttributes name: the role trusting the login\'s own environment gives credentials, one naming another attribute is refused', async () => {
    const login = (attributes: string) =>
      `values:\n  login:\n    fn::open::aws-login:\n      oidc:\n        roleArn: ${SHARED_LOGIN_ROLE}\n        sessionName: shared\n        subjectAttributes: [${attributes}]\n`;
    for (const [name, attributes] of [['aws', 'currentEnvironment.name, pulumi.user.login'], ['aws-by-root', 'rootEnvironment.name, pulumi.user.login']]) {
      ok(await call('POST', ESC, { project: 'shared', name }));
      ok(await call('PATCH', `${ESC}/shared/${name}`, login(attributes)));
    }
    for (const [name, imported] of [['uses-shared', 'shared/aws'], ['uses-root', 'shared/aws-by-root']]) {
      ok(await call('POST', ESC, { project: 'app', name }));
      ok(await call('PATCH', `${ESC}/app/${name}`, `imports:\n  - ${imported}\nvalues:\n  key: \${login.accessKeyId}\n`));
    }

    const { id } = ok(await call('POST', `${ESC}/app/uses-shared/open`));
    const opened = ok(await call('GET', `${ESC}/app/uses-shared/open/${id}`)).properties;
    const refused = await call('POST', `${ESC}/app/uses-root/open`);

    expect(opened.key.value).toMatch(/^ASIA/);
    const summaries = (refused.json.diagnostics as { summary: string }[]).map((d) => d.summary).join('\n');
    expect(failed(refused, 400)).toContain(`could not assume role '${SHARED_LOGIN_ROLE}'`);
    expect(summaries).toContain("sub 'pulumi:environments:pulumi.organization.login:acme:rootEnvironment.name:app/uses-root:pulumi.user.login:");
    expect(summaries).toContain('AccessDenied');
  });

  it('refuses on save a provider input that breaks its schema, with the diagnostic on its line', async () => {
    ok(await call('POST', ESC, { project: 'app', name: 'broken' }));
    const broken = 'values:\n  login:\n    fn::open::aws-login:\n      oidc:\n        roleArn: 42\n';

    const refused = await call('PATCH', `${ESC}/app/broken`, broken);

    failed(refused, 400);
    const diagnostics = refused.json.diagnostics as { summary: string; range?: { begin: { line: number } } }[];
    expect(diagnostics.map((d) => d.summary)).toEqual(expect.arrayContaining([expect.stringMatching(/sessionName/), expect.stringMatching(/string/)]));
    expect(diagnostics.every((d) => d.range !== undefined)).toBe(true);
  });
});
