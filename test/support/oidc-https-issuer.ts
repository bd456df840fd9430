/**
 * A test OIDC issuer served over HTTPS on 127.0.0.1, with a certificate from a test CA generated per run by Debian's
 * openssl. The CA file is what the server under test trusts (NODE_EXTRA_CA_CERTS); nothing here ever switches TLS
 * verification off, and no key is ever written anywhere but this run's temp folder (removed after start-up).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestIssuer } from '../../shared/testing/oidc-issuer.js';

export interface HttpsIssuer {
  issuer: TestIssuer;
  /** PEM file of the test CA that signed the server's certificate. */
  caFile: string;
  close(): Promise<void>;
}

/** Generates a test CA and a certificate for 127.0.0.1, and serves `issuer`'s documents over HTTPS. */
export async function startHttpsIssuer(): Promise<HttpsIssuer> {
  const dir = mkdtempSync(join(tmpdir(), 'stackyard-oidc-ca-'));
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', file('ca.key'), '-out', file('ca.pem'),
    '-days', '2', '-subj', '/CN=Stackyard test CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', file('leaf.key'), '-out', file('leaf.csr'), '-subj', '/CN=127.0.0.1');
  writeFileSync(file('leaf.ext'), 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n');
  openssl('x509', '-req', '-in', file('leaf.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial', '-out', file('leaf.pem'), '-days', '2', '-extfile', file('leaf.ext'));

  const issuer = new TestIssuer('');
  const server: Server = createServer({ key: readFileSync(file('leaf.key')), cert: readFileSync(file('leaf.pem')) }, (request, response) => {
    const body = issuer.document(`${issuer.url}${request.url ?? ''}`);
    response.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body ?? { error: 'not found' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  issuer.published = (await TestIssuer.create(issuer.url)).published;
  // Only the CA certificate is needed from here on; the keys stay in memory (the server has read its own).
  for (const name of ['ca.key', 'leaf.key', 'leaf.csr', 'leaf.ext']) rmSync(file(name), { force: true });
  return {
    issuer,
    caFile: file('ca.pem'),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
