/**
 * The service as an OpenID Connect issuer for its environments (`fn::open::aws-login`): it signs short-lived ID
 * tokens that a cloud's STS verifies against the key set it publishes. Issuer: `<service URL>/oidc` (Pulumi's
 * `https://api.pulumi.com/oidc` layout); discovery at `<issuer>/.well-known/openid-configuration`, keys at
 * `<issuer>/.well-known/jwks`.
 *
 * The signing key (ES256, P-256) is made on first use and stored once, sealed: its PKCS#8 form is encrypted with
 * the secrets envelope under a data key from the key service (KMS in AWS) bound to the context
 * `{stackId: "oidc-issuer"}`, and written to the object store with put-once semantics, so concurrent first uses
 * (several Lambdas) agree on one key: the loser of the write reads the winner's. Only the public key is ever
 * published; the private key lives unsealed in memory only.
 */
import { randomUUID } from 'node:crypto';
import { exportJWK, exportPKCS8, generateKeyPair, importPKCS8, SignJWT, type JWK, type JWTPayload } from 'jose';
import { ConflictError, InvalidInputError, NotFoundError, UnavailableError } from '../../errors.js';
import type { ServiceDeps } from '../../kernel/deps.js';
import { dataKeyContext, openSecret, sealSecret } from '../../secrets/secrets-envelope.js';

/** Path of the issuer under the service URL. */
export const ISSUER_PATH = '/oidc';
/** The object scope (and key-service context) of the issuer's sealed key; stack ids are UUIDs, so none equals it. */
export const ISSUER_KEY_SCOPE = 'oidc-issuer';
const KEY_OBJECT = { stackId: ISSUER_KEY_SCOPE, name: 'signing-key-v1.json' };
const ALG = 'ES256';
/** How long a signed ID token is valid: long enough for one STS call. */
export const ID_TOKEN_LIFETIME_SECONDS = 5 * 60;

interface StoredIssuerKey {
  version: 1;
  kid: string;
  alg: typeof ALG;
  encryptedDataKey: string;
  sealedPkcs8: string;
  publicJwk: JWK;
}

interface IssuerKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

const loaded = new WeakMap<object, Promise<IssuerKey>>();

/** The issuer URL of this service: `<service URL>/oidc`. */
export function issuerUrl(deps: ServiceDeps): string {
  const base = deps.options.serviceUrl?.replace(/\/+$/, '');
  if (!base) throw new UnavailableError('The service has no public URL, so it cannot issue OIDC tokens: set STACKYARD_PUBLIC_URL.');
  if (!/^https?:\/\//.test(base)) {
    throw new InvalidInputError(
      `OIDC tokens need an issuer AWS can reach, and '${base.slice(0, 200)}' is local storage: open the environment through a Stackyard service (stackyard serve with STACKYARD_PUBLIC_URL, or the AWS deployment).`,
    );
  }
  return `${base}${ISSUER_PATH}`;
}

/** The discovery document (OpenID Connect Discovery 1.0 §3) of the issuer. */
export function discoveryDocument(deps: ServiceDeps): Record<string, unknown> {
  const issuer = issuerUrl(deps);
  return {
    issuer,
    jwks_uri: `${issuer}/.well-known/jwks`,
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [ALG],
    claims_supported: ['iss', 'sub', 'aud', 'exp', 'iat', 'nbf', 'jti'],
  };
}

/** The published key set: the public half of the signing key. */
export async function issuerKeySet(deps: ServiceDeps): Promise<{ keys: JWK[] }> {
  return { keys: [(await issuerKey(deps)).publicJwk] };
}

/** An ID token for `audience` about `subject`, signed now and valid for {@link ID_TOKEN_LIFETIME_SECONDS}. */
export async function signIdToken(deps: ServiceDeps, claims: { subject: string; audience: string } & JWTPayload): Promise<string> {
  const { subject, audience, ...extra } = claims;
  const key = await issuerKey(deps);
  const now = Math.floor(deps.now() / 1000);
  return new SignJWT({ ...extra })
    .setProtectedHeader({ alg: ALG, kid: key.kid, typ: 'JWT' })
    .setIssuer(issuerUrl(deps))
    .setSubject(subject)
    .setAudience(audience)
    .setIssuedAt(now)
    .setNotBefore(now)
    .setExpirationTime(now + ID_TOKEN_LIFETIME_SECONDS)
    .setJti(randomUUID())
    .sign(key.privateKey);
}

function issuerKey(deps: ServiceDeps): Promise<IssuerKey> {
  let pending = loaded.get(deps.storage);
  if (!pending) {
    pending = loadOrCreate(deps);
    pending.catch(() => loaded.delete(deps.storage));
    loaded.set(deps.storage, pending);
  }
  return pending;
}

async function loadOrCreate(deps: ServiceDeps): Promise<IssuerKey> {
  const existing = await readStored(deps);
  if (existing) return open(deps, existing);
  const created = await createStored(deps);
  try {
    await deps.storage.checkpoints.put(KEY_OBJECT, Buffer.from(JSON.stringify(created.stored), 'utf8'));
    return created.key;
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    const winner = await readStored(deps);
    if (!winner) throw new UnavailableError('The OIDC issuer key was written by another instance but cannot be read back; retry.', { cause: error });
    return open(deps, winner);
  }
}

async function readStored(deps: ServiceDeps): Promise<StoredIssuerKey | undefined> {
  try {
    return JSON.parse(Buffer.from(await deps.storage.checkpoints.get(KEY_OBJECT)).toString('utf8')) as StoredIssuerKey;
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

async function open(deps: ServiceDeps, stored: StoredIssuerKey): Promise<IssuerKey> {
  const dataKey = await deps.storage.keys.decryptDataKey(Buffer.from(stored.encryptedDataKey, 'base64'), dataKeyContext(ISSUER_KEY_SCOPE));
  const pkcs8 = openSecret(dataKey, ISSUER_KEY_SCOPE, Buffer.from(stored.sealedPkcs8, 'base64'));
  if (!pkcs8) throw new UnavailableError('The stored OIDC issuer key does not open under its data key: it was altered, or the key service changed.');
  return { kid: stored.kid, privateKey: await importPKCS8(Buffer.from(pkcs8).toString('utf8'), ALG), publicJwk: stored.publicJwk };
}

async function createStored(deps: ServiceDeps): Promise<{ stored: StoredIssuerKey; key: IssuerKey }> {
  const { privateKey, publicKey } = await generateKeyPair(ALG, { extractable: true });
  const kid = randomUUID();
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: ALG, use: 'sig' };
  const dataKey = await deps.storage.keys.generateDataKey(dataKeyContext(ISSUER_KEY_SCOPE));
  const sealed = sealSecret(dataKey.plaintext, ISSUER_KEY_SCOPE, Buffer.from(await exportPKCS8(privateKey), 'utf8'));
  const stored: StoredIssuerKey = {
    version: 1,
    kid,
    alg: ALG,
    encryptedDataKey: Buffer.from(dataKey.ciphertext).toString('base64'),
    sealedPkcs8: Buffer.from(sealed).toString('base64'),
    publicJwk,
  };
  return { stored, key: { kid, privateKey, publicJwk } };
}
