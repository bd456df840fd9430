/**
 * The service as an OpenID Connect issuer for its environments (`fn::open::aws-login`): it signs short-lived ID
 * tokens that a cloud's STS verifies against the key set it publishes. Issuer: `<service URL>/oidc` (Pulumi's
 * `https://api.pulumi.com/oidc` layout); discovery at `<issuer>/.well-known/openid-configuration`, keys at
 * `<issuer>/.well-known/jwks`.
 *
 * Keys (ES256, P-256) form a chain of generations (key-chain.ts), made on first use and then by rotation; when each
 * signs and is published follows from the chain and the clock alone (key-schedule.ts). Each instance rereads the
 * chain every `SIGNER_REFRESH_SECONDS`, so a rotation made by another instance reaches it well before the new key
 * starts signing. A token's `kid` header names the key that signed it.
 */
import { randomUUID } from 'node:crypto';
import { SignJWT, type JWK, type JWTPayload } from 'jose';
import { ConflictError, InvalidInputError, UnavailableError } from '../../errors.js';
import type { ServiceDeps } from '../../kernel/deps.js';
import { ALG, openKey, readChain, writeGeneration, type ChainKey } from './key-chain.js';
import {
  ID_TOKEN_LIFETIME_SECONDS,
  isPublished,
  keyStandings,
  PUBLISH_AHEAD_SECONDS,
  SIGNER_REFRESH_SECONDS,
  signerOf,
  type KeyStanding,
} from './key-schedule.js';

/** Path of the issuer under the service URL. */
export const ISSUER_PATH = '/oidc';

interface ChainView {
  readAt: number;
  chain: Promise<ChainKey[]>;
}

/** Per storage: the chain last read, and the private keys opened so far (by kid), so a reread costs no key-service call. */
const views = new WeakMap<object, ChainView>();
const privateKeys = new WeakMap<object, Map<string, Promise<CryptoKey>>>();

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

/** The published key set: the public halves of the next, the signing and the not yet retired previous keys. */
export async function issuerKeySet(deps: ServiceDeps): Promise<{ keys: JWK[] }> {
  const chain = await currentChain(deps);
  const published = new Set(keyStandings(chain, deps.now()).filter(isPublished).map((standing) => standing.kid));
  return { keys: chain.filter((key) => published.has(key.kid)).map((key) => key.publicJwk) };
}

/** An ID token for `audience` about `subject`, signed now by the signing key and valid for {@link ID_TOKEN_LIFETIME_SECONDS}. */
export async function signIdToken(deps: ServiceDeps, claims: { subject: string; audience: string } & JWTPayload): Promise<string> {
  const { subject, audience, ...extra } = claims;
  const now = deps.now();
  const signer = signerOf(await currentChain(deps), now);
  if (signer === undefined) throw new UnavailableError('The OIDC issuer has no key that signs yet; retry in a few minutes.');
  const seconds = Math.floor(now / 1000);
  return new SignJWT({ ...extra })
    .setProtectedHeader({ alg: ALG, kid: signer.kid, typ: 'JWT' })
    .setIssuer(issuerUrl(deps))
    .setSubject(subject)
    .setAudience(audience)
    .setIssuedAt(seconds)
    .setNotBefore(seconds)
    .setExpirationTime(seconds + ID_TOKEN_LIFETIME_SECONDS)
    .setJti(randomUUID())
    .sign(await privateKey(deps, signer));
}

/** Every key that may still matter, oldest first, with its state now (read from storage, not from this instance's copy). */
export async function issuerKeyStandings(deps: ServiceDeps): Promise<KeyStanding[]> {
  const now = deps.now();
  return keyStandings(await chainWithFirstKey(deps, now), now);
}

/**
 * Makes the next key: published now, signing {@link PUBLISH_AHEAD_SECONDS} later; the current key keeps signing until
 * then and stays published until its last token has expired. One rotation at a time: while a rotated key waits to
 * sign, or when another instance rotates at the same moment (both write the same generation once; one wins), this
 * throws `ConflictError` and changes nothing. Returns the standings after the rotation.
 */
export async function rotateIssuerKey(deps: ServiceDeps): Promise<KeyStanding[]> {
  const now = deps.now();
  const chain = await chainWithFirstKey(deps, now);
  const waiting = chain.find((key) => key.signsFrom > now);
  if (waiting) {
    throw new ConflictError(
      `Key ${waiting.kid} (generation ${waiting.generation}) from an earlier rotation starts signing at ${new Date(waiting.signsFrom).toISOString()}: rotate again after that.`,
    );
  }
  const generation = Math.max(...chain.map((key) => key.generation)) + 1;
  let made: ChainKey;
  try {
    made = await writeGeneration(deps, generation, now + PUBLISH_AHEAD_SECONDS * 1000);
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    throw new ConflictError(`Another rotation made key generation ${generation} at the same moment; it is the next key now (see 'stackyard admin oidc-key ls').`, { cause: error });
  }
  views.delete(deps.storage);
  return keyStandings([...chain, made], now);
}

function currentChain(deps: ServiceDeps): Promise<ChainKey[]> {
  const now = deps.now();
  const view = views.get(deps.storage);
  if (view && now - view.readAt < SIGNER_REFRESH_SECONDS * 1000) return view.chain;
  const chain = chainWithFirstKey(deps, now);
  const fresh = { readAt: now, chain };
  chain.catch(() => {
    if (views.get(deps.storage) === fresh) views.delete(deps.storage);
  });
  views.set(deps.storage, fresh);
  return chain;
}

/** The chain, after making its first key (signing at once) when there is none; instances starting together agree on one. */
async function chainWithFirstKey(deps: ServiceDeps, now: number): Promise<ChainKey[]> {
  const chain = await readChain(deps, now);
  if (chain.length > 0) return chain;
  try {
    return [await writeGeneration(deps, 1, now)];
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    const winner = await readChain(deps, now);
    if (winner.length === 0) throw new UnavailableError('The OIDC issuer key was written by another instance but cannot be read back; retry.', { cause: error });
    return winner;
  }
}

function privateKey(deps: ServiceDeps, key: ChainKey): Promise<CryptoKey> {
  let opened = privateKeys.get(deps.storage);
  if (!opened) privateKeys.set(deps.storage, (opened = new Map()));
  let pending = opened.get(key.kid);
  if (!pending) {
    pending = openKey(deps, key);
    pending.catch(() => opened.delete(key.kid));
    opened.set(key.kid, pending);
  }
  return pending;
}
