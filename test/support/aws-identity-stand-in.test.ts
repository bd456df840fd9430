/**
 * The STS / Secrets Manager / SSM stand-in against our own AWS client (shared/adapters/aws/aws-provider-api.ts):
 * credentials only for a web identity token its issuer signed, that is unexpired and that the role's trust policy
 * matches; signed calls only with the secret key STS issued. The issuer is a test issuer served over loopback HTTP.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sdkAwsProviderApi } from '../../shared/adapters/aws/aws-provider-api.js';
import { AwsCallError } from '../../shared/ports/aws-provider-api.js';
import { TestIssuer } from '../../shared/testing/oidc-issuer.js';
import { createAwsIdentityServer } from './aws-identity-protocol-server.js';

const ROLE = 'arn:aws:iam::000000000000:role/reader';
const SUBJECT = 'pulumi:environments:org:acme:env:app/dev';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let issuer: TestIssuer;
let issuerServer: Server;
let standIn: Server;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  issuer = await TestIssuer.create('pending');
  issuerServer = createServer((req, res) => {
    const document = issuer.document(`${issuer.url}${req.url}`);
    res.writeHead(document === undefined ? 404 : 200, { 'content-type': 'application/json' }).end(JSON.stringify(document ?? {}));
  });
  issuer.url = await listen(issuerServer);
  standIn = createAwsIdentityServer({
    roles: [{ roleArn: ROLE, issuer: issuer.url, audience: 'aws:acme', subject: 'pulumi:environments:org:acme:env:app/*' }],
    secrets: { db: 'db-secret' },
    parameters: {},
  });
  const endpoint = await listen(standIn);
  env = { AWS_ENDPOINT_URL_STS: endpoint, AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoint, AWS_ENDPOINT_URL_SSM: endpoint };
});

afterAll(async () => {
  await new Promise((resolve) => standIn.close(resolve));
  await new Promise((resolve) => issuerServer.close(resolve));
});

function assume(token: string) {
  return sdkAwsProviderApi(env).assumeRoleWithWebIdentity({ roleArn: ROLE, sessionName: 'test', webIdentityToken: token, durationSeconds: 900 });
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AwsCallError);
  return (error as AwsCallError).code;
}

describe('the STS stand-in', () => {
  it('issues credentials for a token its issuer signed that the trust policy matches, and they sign calls', async () => {
    const credentials = await assume(await issuer.sign({ sub: SUBJECT, aud: 'aws:acme' }));

    const secret = await sdkAwsProviderApi(env).getSecretValue({ region: 'us-east-1', credentials, secretId: 'db' });

    expect(credentials.accessKeyId).toMatch(/^ASIA/);
    expect(Date.parse(credentials.expiration) - Date.now()).toBeLessThanOrEqual(900_000);
    expect(secret.secretString).toBe('db-secret');
  });

  it('refuses a token for another audience or subject, an expired one and one signed with a key the issuer does not publish', async () => {
    const foreign = await TestIssuer.create(issuer.url);
    const now = Math.floor(Date.now() / 1000);

    expect(await refusal(assume(await issuer.sign({ sub: SUBJECT, aud: 'aws:other' })))).toBe('AccessDenied');
    expect(await refusal(assume(await issuer.sign({ sub: 'pulumi:environments:org:evil:env:app/dev', aud: 'aws:acme' })))).toBe('AccessDenied');
    expect(await refusal(assume(await issuer.sign({ sub: SUBJECT, aud: 'aws:acme', iat: now - 900, nbf: now - 900, exp: now - 600 })))).toBe('ExpiredTokenException');
    expect(await refusal(assume(await foreign.sign({ sub: SUBJECT, aud: 'aws:acme' })))).toBe('InvalidIdentityToken');
    expect(await refusal(assume(issuer.unsigned({ sub: SUBJECT, aud: 'aws:acme' })))).toBe('InvalidIdentityToken');
  });

  it('refuses a call signed with any other secret key, or without the session token', async () => {
    const credentials = await assume(await issuer.sign({ sub: SUBJECT, aud: 'aws:acme' }));
    const get = (signing: typeof credentials) => sdkAwsProviderApi(env).getSecretValue({ region: 'us-east-1', credentials: signing, secretId: 'db' });

    expect(await refusal(get({ ...credentials, secretAccessKey: `${credentials.secretAccessKey}x` }))).toBe('InvalidSignatureException');
    expect(await refusal(get({ ...credentials, sessionToken: undefined }))).toBe('UnrecognizedClientException');
    expect(await refusal(get({ ...credentials, accessKeyId: 'ASIANOTISSUED' }))).toBe('UnrecognizedClientException');
  });
});
