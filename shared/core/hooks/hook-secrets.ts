/**
 * Hook signing secrets at rest: each is sealed (AES-256-GCM) under its own data key from the key service (KMS in
 * AWS), whose encryption context names the hook, so the stored record holds only ciphertext and a secret copied to
 * another hook's record does not open. Opened only to sign a delivery.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { InvalidInputError, UnavailableError } from '../errors.js';
import type { HookScope } from '../../ports/hook-store.js';
import type { KeyService } from '../../ports/key-service.js';

const FORMAT = 'v1';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** The `purpose` of every hook secret's encryption context; the infra's KMS permission is conditioned on it. */
export const HOOK_SECRET_PURPOSE = 'stackyard-hook-secret';

/** The key service context binding a sealed secret to one hook. */
export function hookSecretContext(scope: HookScope, name: string): Record<string, string> {
  return { purpose: HOOK_SECRET_PURPOSE, org: scope.org, scope: scope.stackId ?? 'org', hook: name };
}

function aad(scope: HookScope, name: string): Buffer {
  const context = hookSecretContext(scope, name);
  return Buffer.from(`${context.purpose}/${context.org}/${context.scope}/${context.hook}`, 'utf8');
}

/** `v1.<encrypted data key>.<nonce|ciphertext|tag>`, base64url. */
export async function sealHookSecret(keys: KeyService, scope: HookScope, name: string, secret: string): Promise<string> {
  const dataKey = await keys.generateDataKey(hookSecretContext(scope, name));
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', dataKey.plaintext, nonce);
  cipher.setAAD(aad(scope, name));
  const body = Buffer.concat([nonce, cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  dataKey.plaintext.fill(0);
  return [FORMAT, Buffer.from(dataKey.ciphertext).toString('base64url'), body.toString('base64url')].join('.');
}

/** The plaintext of a secret sealed by `sealHookSecret` for this hook; throws when it is not this hook's. */
export async function openHookSecret(keys: KeyService, scope: HookScope, name: string, sealed: string): Promise<string> {
  const [format, encryptedKey, encoded] = sealed.split('.');
  const body = Buffer.from(encoded ?? '', 'base64url');
  if (format !== FORMAT || !encryptedKey || body.length < NONCE_BYTES + TAG_BYTES) {
    throw new InvalidInputError(`The signing secret of hook '${name}' is unreadable: add the hook again with its secret.`);
  }
  const key = await keys.decryptDataKey(Buffer.from(encryptedKey, 'base64url'), hookSecretContext(scope, name));
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, body.subarray(0, NONCE_BYTES));
    decipher.setAAD(aad(scope, name));
    decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
    return Buffer.concat([decipher.update(body.subarray(NONCE_BYTES, body.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch (error) {
    throw new InvalidInputError(`The signing secret of hook '${name}' is unreadable: add the hook again with its secret.`, { cause: error });
  } finally {
    key.fill(0);
  }
}

/** Opens sealed secrets through `keys`, keeping each opened one for a while so a dispatcher run asks KMS once per hook. */
export function hookSecretOpener(keys: KeyService | undefined, cacheMs = 5 * 60_000, now: () => number = Date.now) {
  const opened = new Map<string, { secret: string; until: number }>();
  return async (scope: HookScope, name: string, sealed: string): Promise<string> => {
    if (!keys) throw new UnavailableError(`Hook '${name}' signs its deliveries, but no key service was given to open its secret.`);
    const cached = opened.get(sealed);
    if (cached && cached.until > now()) return cached.secret;
    const secret = await openHookSecret(keys, scope, name, sealed);
    if (opened.size >= 256) opened.clear();
    opened.set(sealed, { secret, until: now() + cacheMs });
    return secret;
  };
}
