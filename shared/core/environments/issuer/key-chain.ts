/**
 * The issuer's signing keys as stored: one object per generation, `oidc-issuer/signing-key-v<generation>.json`, each
 * written once (the object store's put-once write is what makes a rotation conditional: two instances making the
 * same generation at once, one wins and the other gets `ConflictError`). A key's private half is stored only sealed:
 * its PKCS#8 form encrypted with the secrets envelope under a data key from the key service (KMS in AWS) bound to the
 * context `{stackId: "oidc-issuer"}`; it is unsealed in memory only.
 */
import { randomUUID } from 'node:crypto';
import { exportJWK, exportPKCS8, generateKeyPair, importPKCS8, type JWK } from 'jose';
import { NotFoundError, UnavailableError } from '../../errors.js';
import type { ServiceDeps } from '../../kernel/deps.js';
import { dataKeyContext, openSecret, sealSecret } from '../../secrets/secrets-envelope.js';
import { RETIRE_AFTER_SECONDS, type ScheduledKey } from './key-schedule.js';

/** The object scope (and key-service context) of the issuer's sealed keys; stack ids are UUIDs, so none equals it. */
export const ISSUER_KEY_SCOPE = 'oidc-issuer';
/** The signing algorithm of every issuer key. */
export const ALG = 'ES256';
const NAME_PREFIX = 'signing-key-v';
const NAME = /^signing-key-v([1-9][0-9]{0,8})\.json$/;

/** One generation as stored. Generation 1 written before rotation existed has no generation or times: it signs from the start. */
interface StoredIssuerKey {
  version: 1;
  kid: string;
  alg: typeof ALG;
  encryptedDataKey: string;
  sealedPkcs8: string;
  publicJwk: JWK;
  generation?: number;
  createdAt?: string;
  signsFrom?: string;
}

/** A generation of the chain: its schedule, its public half, and its sealed private half. */
export interface ChainKey extends ScheduledKey {
  publicJwk: JWK;
  stored: StoredIssuerKey;
}

/** Where generation `generation` is stored. */
export const keyObject = (generation: number) => ({ stackId: ISSUER_KEY_SCOPE, name: `${NAME_PREFIX}${generation}.json` });

/**
 * The generations that may still matter at `now`, oldest first: the newest, and each older one down to the first
 * whose successor signed long enough ago that it is retired (older ones are retired too, so they are not read).
 */
export async function readChain(deps: ServiceDeps, now: number): Promise<ChainKey[]> {
  const generations = (await deps.storage.checkpoints.list(ISSUER_KEY_SCOPE, NAME_PREFIX))
    .map((name) => NAME.exec(name)?.[1])
    .filter((match): match is string => match !== undefined)
    .map(Number)
    .sort((a, b) => b - a);
  const chain: ChainKey[] = [];
  for (const generation of generations) {
    const key = await readGeneration(deps, generation);
    if (key === undefined) continue;
    chain.unshift(key);
    const successor = chain[1];
    if (successor !== undefined && successor.signsFrom + RETIRE_AFTER_SECONDS * 1000 <= now) break;
  }
  return chain;
}

async function readGeneration(deps: ServiceDeps, generation: number): Promise<ChainKey | undefined> {
  let stored: StoredIssuerKey;
  try {
    stored = JSON.parse(Buffer.from(await deps.storage.checkpoints.get(keyObject(generation))).toString('utf8')) as StoredIssuerKey;
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
  const signsFrom = stored.signsFrom === undefined ? 0 : Date.parse(stored.signsFrom);
  return { generation, kid: stored.kid, signsFrom, publicJwk: stored.publicJwk, stored };
}

/**
 * Makes a new key and writes it as `generation`, signing from `signsFrom` (epoch ms). Throws `ConflictError` when
 * that generation exists already (another instance made it first), and writes nothing then.
 */
export async function writeGeneration(deps: ServiceDeps, generation: number, signsFrom: number): Promise<ChainKey> {
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
    generation,
    createdAt: new Date(deps.now()).toISOString(),
    signsFrom: new Date(signsFrom).toISOString(),
  };
  await deps.storage.checkpoints.put(keyObject(generation), Buffer.from(JSON.stringify(stored), 'utf8'));
  return { generation, kid, signsFrom, publicJwk, stored };
}

/** The private half of a key, unsealed through the key service. */
export async function openKey(deps: ServiceDeps, key: ChainKey): Promise<CryptoKey> {
  const dataKey = await deps.storage.keys.decryptDataKey(Buffer.from(key.stored.encryptedDataKey, 'base64'), dataKeyContext(ISSUER_KEY_SCOPE));
  const pkcs8 = openSecret(dataKey, ISSUER_KEY_SCOPE, Buffer.from(key.stored.sealedPkcs8, 'base64'));
  if (!pkcs8) throw new UnavailableError(`The stored OIDC issuer key ${key.kid} does not open under its data key: it was altered, or the key service changed.`);
  return importPKCS8(Buffer.from(pkcs8).toString('utf8'), ALG);
}
