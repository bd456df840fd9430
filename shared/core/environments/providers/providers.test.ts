import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serviceFixture, type ServiceFixture } from '../../../../test/support/service-fixture.js';
import { checkEnvironment, evalEnvironment } from '../../../esc/index.js';
import { awsEndpoint } from '../../../adapters/aws/aws-provider-api.js';
import { awsLoginClaims } from './aws-login.js';
import { environmentProviders } from './index.js';
import { discoveryDocument, ISSUER_KEY_SCOPE, issuerKeySet, signIdToken } from '../issuer/index.js';
import { durationSeconds } from './provider-inputs.js';

let fx: ServiceFixture;

/** Subject sources for an environment opened at its root by `me`. */
const at = (environment: string) => ({ rootEnvironment: environment, currentEnvironment: environment, userLogin: 'me' });

beforeEach(async () => {
  fx = await serviceFixture({ serviceUrl: 'https://stackyard.example.com/' });
});

afterEach(async () => {
  await fx.close();
});

describe('the OIDC issuer', () => {
  it('signs ID tokens that verify against the key set it publishes, with its issuer, subject and audience', async () => {
    const claims = awsLoginClaims('acme', at('app/dev'));

    const token = await signIdToken(fx.deps, claims);
    const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet((await issuerKeySet(fx.deps)) as JSONWebKeySet), {
      currentDate: new Date(fx.deps.now()),
    });

    expect(discoveryDocument(fx.deps)).toMatchObject({ issuer: 'https://stackyard.example.com/oidc', jwks_uri: 'https://stackyard.example.com/oidc/.well-known/jwks' });
    expect(protectedHeader.alg).toBe('ES256');
    expect(payload).toMatchObject({ iss: 'https://stackyard.example.com/oidc', sub: 'pulumi:environments:org:acme:env:app/dev', aud: 'aws:acme' });
    expect(payload.exp! - payload.iat!).toBe(300);
  });

  it('makes its key once and stores it only sealed: another instance on the same storage signs with the same key', async () => {
    const first = await issuerKeySet(fx.deps);
    const stored = Buffer.from(await fx.storage.checkpoints.get({ stackId: ISSUER_KEY_SCOPE, name: 'signing-key-v1.json' })).toString('utf8');
    const other = { ...fx.deps, storage: { ...fx.storage } };

    const token = await signIdToken(other, awsLoginClaims('acme', at('app/dev')));

    expect(await issuerKeySet(other)).toEqual(first);
    await expect(jwtVerify(token, createLocalJWKSet(first as JSONWebKeySet), { currentDate: new Date(fx.deps.now()) })).resolves.toBeDefined();
    expect(stored).not.toMatch(/PRIVATE KEY/);
    expect(stored).not.toContain('"d"');
  });
});

describe('aws-login', () => {
  it('refuses OIDC under local storage (login --local), whose issuer AWS cannot reach, and still passes static keys through', async () => {
    const local = { ...fx.deps, options: { ...fx.deps.options, serviceUrl: 'file:///home/me/.stackyard' } };
    const yaml = (login: string) => `values:\n  login:\n    fn::open::aws-login:\n      ${login}\n`;

    const oidc = await evalEnvironment('app/dev', yaml('oidc: {roleArn: arn:aws:iam::1:role/r, sessionName: s}'), { providers: environmentProviders(local, 'acme') });
    const keys = await evalEnvironment('app/dev', yaml('static: {accessKeyId: AKIA1, secretAccessKey: shh}'), { providers: environmentProviders(local, 'acme') });

    expect(oidc.diagnostics.map((d) => d.summary)).toEqual([expect.stringMatching(/^OIDC tokens need an issuer AWS can reach, and 'file:\/\/\/home\/me\/.stackyard' is local storage/)]);
    expect(keys.diagnostics).toEqual([]);
    expect(keys.environment!.properties.login).toMatchObject({
      value: { accessKeyId: { value: 'AKIA1' }, secretAccessKey: { value: 'shh', secret: true }, sessionToken: { value: '', secret: true } },
    });
  });

  it("gives Pulumi ESC's subject and audience, the bare organization and environment for the default project", () => {
    expect(awsLoginClaims('acme', at('app/dev'))).toEqual({ subject: 'pulumi:environments:org:acme:env:app/dev', audience: 'aws:acme' });
    expect(awsLoginClaims('acme', at('default/dev'))).toEqual({ subject: 'pulumi:environments:org:acme:env:dev', audience: 'acme' });
  });

  it('forms a custom subject from subjectAttributes, in order, as ESC documents it', () => {
    const sources = { rootEnvironment: 'app/dev', currentEnvironment: 'shared/aws', userLogin: 'personA' };

    const custom = awsLoginClaims('contoso', sources, ['currentEnvironment.name', 'pulumi.user.login']);
    const all = awsLoginClaims('contoso', sources, ['rootEnvironment.name', 'pulumi.organization.login']);
    const legacy = awsLoginClaims('contoso', { ...sources, currentEnvironment: 'default/development' }, ['currentEnvironment.name']);

    expect(custom).toEqual({ subject: 'pulumi:environments:pulumi.organization.login:contoso:currentEnvironment.name:shared/aws:pulumi.user.login:personA', audience: 'aws:contoso' });
    expect(all.subject).toBe('pulumi:environments:pulumi.organization.login:contoso:rootEnvironment.name:app/dev:pulumi.organization.login:contoso');
    expect(legacy.subject).toBe('pulumi:environments:pulumi.organization.login:contoso:currentEnvironment.name:development');
    expect(() => awsLoginClaims('contoso', sources, ['pulumi.user.email'])).toThrow("aws-login: unknown subject attribute 'pulumi.user.email'");
  });

  it('reads Go durations of hours, minutes and seconds, and nothing else', () => {
    expect([durationSeconds('1h'), durationSeconds('45m'), durationSeconds('1h30m'), durationSeconds('900s'), durationSeconds('0.5h')]).toEqual([3600, 2700, 5400, 900, 1800]);
    expect([durationSeconds(''), durationSeconds('1d'), durationSeconds('h'), durationSeconds('1h '), durationSeconds('-1h')]).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });

  it('refuses a session longer than an hour when opening, before any token is signed', async () => {
    const yaml = 'values:\n  login:\n    fn::open::aws-login:\n      oidc:\n        roleArn: arn:aws:iam::1:role/r\n        sessionName: s\n        duration: 2h\n';

    const { diagnostics } = await evalEnvironment('app/dev', yaml, { providers: environmentProviders(fx.deps, 'acme') });

    expect(diagnostics.map((d) => d.summary)).toEqual(["aws-login: duration '2h' must be from 15m to 1h (credentials from an environment are short-lived)"]);
    await expect(fx.storage.checkpoints.get({ stackId: ISSUER_KEY_SCOPE, name: 'signing-key-v1.json' })).rejects.toThrow(/does not exist/);
  });
});

describe('provider inputs are checked against their schemas when checking, with ranges', () => {
  it('reports missing properties and a wrong type on their lines, and opens nothing', async () => {
    const yaml = [
      'values:',
      '  login:',
      '    fn::open::aws-login:',
      '      oidc:',
      '        roleArn: 42',
      '  secrets:',
      '    fn::open::aws-secrets:',
      '      region: us-east-1',
      '      login: ${login}',
      '',
    ].join('\n');

    const { diagnostics } = await checkEnvironment('app/dev', yaml, { providers: environmentProviders(fx.deps, 'acme') });

    const byLine = diagnostics.map((d) => [d.range?.begin.line, d.summary]);
    expect(byLine).toEqual([
      [5, 'expected string, got number'],
      [5, 'missing required properties: sessionName'],
      [8, 'missing required properties: get'],
    ]);
    expect(diagnostics.every((d) => d.severity === 'error')).toBe(true);
  });
});

describe('AWS endpoints', () => {
  it('takes endpoints from the SDK variables, and refuses a region that is not one before it names a host', () => {
    expect(awsEndpoint('ssm', 'eu-west-1', { AWS_ENDPOINT_URL_SSM: 'http://127.0.0.1:9/' })).toBe('http://127.0.0.1:9');
    expect(awsEndpoint('ssm', 'eu-west-1', { AWS_ENDPOINT_URL: 'http://127.0.0.1:8' })).toBe('http://127.0.0.1:8');
    expect(awsEndpoint('secretsManager', 'eu-west-1', {})).toBe('https://secretsmanager.eu-west-1.amazonaws.com');
    expect(() => awsEndpoint('ssm', 'evil.example.com/x', {})).toThrow(/not an AWS region/);
  });
});
