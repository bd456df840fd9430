/**
 * A rotation seen by a relying party: the STS stand-in (test/support) fetches the issuer's discovery document and key
 * set over loopback HTTP, as AWS does, and must accept tokens of the previous key (unexpired, signed before the
 * switch) and of the new one, and `fn::open::aws-login` must get credentials on both sides of the switch. The
 * stand-in checks expiry against the real clock, so the fixture's clock is set so that the switch falls just now.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAwsIdentityServer } from '../../../../test/support/aws-identity-protocol-server.js';
import { serviceFixture, type ServiceFixture } from '../../../../test/support/service-fixture.js';
import { sdkAwsProviderApi } from '../../../adapters/aws/aws-provider-api.js';
import { evalEnvironment } from '../../../esc/index.js';
import { environmentProviders } from '../providers/index.js';
import { discoveryDocument, issuerKeySet, PUBLISH_AHEAD_SECONDS, rotateIssuerKey, signIdToken } from './index.js';

const ROLE = 'arn:aws:iam::000000000000:role/esc-reader';
const SUBJECT = 'pulumi:environments:org:acme:env:app/dev';
const LOGIN = ['values:', '  login:', '    fn::open::aws-login:', '      oidc:', `        roleArn: ${ROLE}`, '        sessionName: rotation', '        duration: 15m', ''].join('\n');

let fx: ServiceFixture;
let issuerServer: Server;
let sts: Server;
let env: NodeJS.ProcessEnv;

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  issuerServer = createServer((req, res) => {
    const answer = req.url === '/oidc/.well-known/jwks' ? issuerKeySet(fx.deps) : Promise.resolve(discoveryDocument(fx.deps));
    void answer.then((body) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body)));
  });
  const issuerBase = await listen(issuerServer);
  sts = createAwsIdentityServer({ roles: [{ roleArn: ROLE, issuer: `${issuerBase}/oidc`, audience: 'aws:acme', subject: SUBJECT }], secrets: {}, parameters: {} });
  const endpoint = await listen(sts);
  env = { AWS_ENDPOINT_URL_STS: endpoint };
  fx = await serviceFixture({ serviceUrl: issuerBase, awsProviderApi: sdkAwsProviderApi(env) });
});

afterAll(async () => {
  await fx.close();
  await new Promise((resolve) => sts.close(resolve));
  await new Promise((resolve) => issuerServer.close(resolve));
});

const assume = (token: string) => sdkAwsProviderApi(env).assumeRoleWithWebIdentity({ roleArn: ROLE, sessionName: 'direct', webIdentityToken: token, durationSeconds: 900 });
const openLogin = async () => {
  const { environment, diagnostics } = await evalEnvironment('app/dev', LOGIN, { providers: environmentProviders(fx.deps, 'acme') });
  expect(diagnostics).toEqual([]);
  return environment!.properties.login!.value as Record<string, { value: string }>;
};
/** Sets the fixture's clock to `offsetMs` from the real time. */
const clockAt = (offsetMs: number) => fx.advance(Date.now() + offsetMs - fx.deps.now());

describe('rotating the issuer key, as the STS stand-in sees it', () => {
  it('accepts the previous key\'s unexpired token and the new key\'s after the switch, and aws-login logs in on both sides', async () => {
    clockAt(-(PUBLISH_AHEAD_SECONDS + 5) * 1000);
    const [previous, next] = await rotateIssuerKey(fx.deps);
    clockAt(-200_000);
    const before = await signIdToken(fx.deps, { subject: SUBJECT, audience: 'aws:acme' });
    const loginBefore = await openLogin();

    clockAt(0);
    const after = await signIdToken(fx.deps, { subject: SUBJECT, audience: 'aws:acme' });
    const loginAfter = await openLogin();

    expect(decodeProtectedHeader(before).kid).toBe(previous!.kid);
    expect(decodeProtectedHeader(after).kid).toBe(next!.kid);
    expect((await assume(before)).accessKeyId).toMatch(/^ASIA/);
    expect((await assume(after)).accessKeyId).toMatch(/^ASIA/);
    expect(loginBefore.accessKeyId!.value).toMatch(/^ASIA/);
    expect(loginAfter.accessKeyId!.value).toMatch(/^ASIA/);
    expect(loginAfter.accessKeyId!.value).not.toBe(loginBefore.accessKeyId!.value);
  });
});
