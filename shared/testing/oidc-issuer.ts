/**
 * A test OIDC issuer: its own signing keys (generated per run, never stored) and ID tokens signed with them (or
 * deliberately wrong). Unit tests hand `document` to a mocked fetcher; test/support/oidc-https-issuer.ts serves it
 * over real HTTPS.
 */
import { randomUUID } from 'node:crypto';
import { base64url, exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload } from 'jose';

export type TestAlg = 'RS256' | 'ES256';

interface SigningKey {
  kid: string;
  alg: TestAlg;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export async function newSigningKey(alg: TestAlg, kid = `k-${randomUUID().slice(0, 8)}`): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

export interface SignOptions {
  /** Which published key signs (default: the first). */
  key?: SigningKey;
  /** Header kid (default: the key's); `null` leaves it out. */
  kid?: string | null;
}

/** The issuer's identity and keys, usable without a server (unit tests hand `documents` to a mocked fetcher). */
export class TestIssuer {
  published: SigningKey[] = [];
  /** How many times each path was fetched. */
  readonly fetches = new Map<string, number>();

  constructor(public url: string) {}

  static async create(url: string): Promise<TestIssuer> {
    const issuer = new TestIssuer(url);
    issuer.published = [await newSigningKey('RS256'), await newSigningKey('ES256')];
    return issuer;
  }

  /** Replaces every published key with new ones (new kids), as an issuer rotating its keys does. */
  async rotate(): Promise<void> {
    this.published = [await newSigningKey('RS256'), await newSigningKey('ES256')];
  }

  /** Claims a CI job's token has, valid now for 5 minutes; `claims` override or add. */
  async sign(claims: JWTPayload, options: SignOptions = {}): Promise<string> {
    const key = options.key ?? this.published[0]!;
    const now = Math.floor(Date.now() / 1000);
    const payload: JWTPayload = { iss: this.url, iat: now, nbf: now, exp: now + 300, jti: randomUUID(), ...claims };
    const header: { alg: TestAlg; typ: string; kid?: string } = { alg: key.alg, typ: 'JWT' };
    if (options.kid !== null) header.kid = options.kid ?? key.kid;
    return new SignJWT(payload).setProtectedHeader(header).sign(key.privateKey);
  }

  /** An unsigned token (`alg: none`), as an attacker would send it. */
  unsigned(claims: JWTPayload): string {
    const now = Math.floor(Date.now() / 1000);
    const encode = (value: object) => base64url.encode(JSON.stringify(value));
    return `${encode({ alg: 'none', typ: 'JWT' })}.${encode({ iss: this.url, iat: now, exp: now + 300, ...claims })}.`;
  }

  /** The discovery document or key set at `url`, or `undefined` for anything else. */
  document(url: string): unknown {
    const base = this.url.replace(/\/+$/, '');
    const path = url.startsWith(base) ? url.slice(base.length) : undefined;
    if (path === undefined) return undefined;
    this.fetches.set(path, (this.fetches.get(path) ?? 0) + 1);
    if (path === '/.well-known/openid-configuration') {
      return { issuer: this.url, jwks_uri: `${base}/jwks`, id_token_signing_alg_values_supported: ['RS256', 'ES256'] };
    }
    if (path === '/jwks') return { keys: this.published.map((key) => key.publicJwk) };
    return undefined;
  }
}

