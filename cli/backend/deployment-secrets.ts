/**
 * Secrets inside an exported deployment: `{"4dabf…": "1b470…", "ciphertext": …}` in stored form, `plaintext`
 * (the JSON text of the value) in `stack export --show-secrets` form. Both conversions go through the stack's key
 * in one batch each.
 */
import { isDomainError } from '../../shared/core/errors.js';
import { formatStackRef, type StackRef } from '../../shared/core/names.js';
import { ApiError } from '../api-client/api-error.js';
import { UserError } from '../output/errors.js';
import { decrypterForProvider, type SecretsProviderSpec, type SourceSecretsOptions } from '../secrets/source-secrets.js';
import type { Backend, UntypedDeployment } from './backend.js';

export const SIG_KEY = '4dabf18193072939515e22adb298388d';
export const SECRET_SIG = '1b47061264138c4ac30d75fd1eb44270';

type SecretObject = { [SIG_KEY]: string; ciphertext?: string; plaintext?: string };

function isSecret(value: unknown): value is SecretObject {
  return value !== null && typeof value === 'object' && (value as Record<string, unknown>)[SIG_KEY] === SECRET_SIG;
}

function walk(value: unknown, visit: (secret: SecretObject) => void): void {
  if (isSecret(value)) visit(value);
  else if (Array.isArray(value)) for (const v of value) walk(v, visit);
  else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) walk(v, visit);
}

/** The state objects (resources and pending operations' resources) of a deployment. */
export function resourceStates(deployment: UntypedDeployment): Record<string, unknown>[] {
  const d = deployment.deployment as { resources?: unknown[]; pending_operations?: { resource?: unknown }[] };
  const states = [...(d.resources ?? [])];
  for (const op of d.pending_operations ?? []) states.push(op?.resource);
  return states.filter((s): s is Record<string, unknown> => s !== null && typeof s === 'object');
}

/** Every secret object in resource inputs and outputs (live references: edit them in place). */
export function secretObjects(deployment: UntypedDeployment): SecretObject[] {
  const secrets: SecretObject[] = [];
  for (const state of resourceStates(deployment)) {
    walk(state.inputs, (s) => secrets.push(s));
    walk(state.outputs, (s) => secrets.push(s));
  }
  return secrets;
}

function isBadCiphertext(error: unknown): boolean {
  return (isDomainError(error) && error.status === 400) || (error instanceof ApiError && error.status === 400);
}

/** Decrypts ciphertexts; a refusal means they belong to another stack, which the message says with the fix. */
export async function decryptStateSecrets(backend: Backend, ref: StackRef, ciphertexts: string[]): Promise<string[]> {
  try {
    return await backend.decrypt(ref, ciphertexts);
  } catch (error) {
    if (!isBadCiphertext(error)) throw error;
    throw new UserError(
      `the deployment holds secrets that stack '${formatStackRef(ref)}' cannot decrypt (encrypted with another stack's key, or altered)`,
      'Export the source stack with `stackyard stack export --show-secrets` and import that file; its plaintext secrets are re-encrypted with this stack\'s key.',
    );
  }
}

/** Replaces every ciphertext by its plaintext, in place (`stack export --show-secrets`). */
export async function revealSecrets(backend: Backend, ref: StackRef, deployment: UntypedDeployment): Promise<void> {
  const secrets = secretObjects(deployment).filter((s) => typeof s.ciphertext === 'string');
  if (secrets.length === 0) return;
  const plaintexts = await decryptStateSecrets(backend, ref, secrets.map((s) => s.ciphertext!));
  secrets.forEach((s, i) => {
    delete s.ciphertext;
    s.plaintext = plaintexts[i];
  });
}

/**
 * Makes a deployment storable under `ref`: plaintext secrets are encrypted with the stack's key, existing
 * ciphertexts are checked to be this stack's, and the secrets provider names this stack. In place.
 */
export async function sealSecrets(backend: Backend, ref: StackRef, deployment: UntypedDeployment, provider: unknown): Promise<void> {
  const secrets = secretObjects(deployment);
  const sealed = secrets.filter((s) => typeof s.ciphertext === 'string');
  if (sealed.length > 0) await decryptStateSecrets(backend, ref, [...new Set(sealed.map((s) => s.ciphertext!))]);
  const open = secrets.filter((s) => typeof s.ciphertext !== 'string' && typeof s.plaintext === 'string');
  if (open.length > 0) {
    const ciphertexts = await backend.encrypt(ref, open.map((s) => s.plaintext!));
    open.forEach((s, i) => {
      delete s.plaintext;
      s.ciphertext = ciphertexts[i];
    });
  }
  (deployment.deployment as Record<string, unknown>).secrets_providers = provider;
}

function providerSpec(deployment: UntypedDeployment): SecretsProviderSpec | undefined {
  const spec = (deployment.deployment as { secrets_providers?: unknown }).secrets_providers;
  return spec !== null && typeof spec === 'object' && typeof (spec as SecretsProviderSpec).type === 'string'
    ? (spec as SecretsProviderSpec)
    : undefined;
}

/** Whether `backend` (under `ref`'s key) opens every ciphertext; a refusal is `false`, other failures are thrown. */
async function opensAll(backend: Backend, ref: StackRef, ciphertexts: string[]): Promise<boolean> {
  try {
    await backend.decrypt(ref, ciphertexts);
    return true;
  } catch (error) {
    if (isBadCiphertext(error)) return false;
    throw error;
  }
}

/**
 * Pulumi's `stack import` semantics for secrets made by another provider: when the deployment's ciphertexts are not
 * `ref`'s own, they are decrypted with the provider the deployment names (`secrets_providers`: passphrase, awskms://,
 * or another stack's service key) and left as in-memory plaintexts for `sealSecrets` to encrypt under `ref`'s key.
 * Returns the provider's description when it re-encrypted anything. In place.
 */
export async function openForeignSecrets(
  backend: Backend,
  ref: StackRef,
  deployment: UntypedDeployment,
  options: SourceSecretsOptions,
): Promise<string | undefined> {
  const sealed = secretObjects(deployment).filter((s) => typeof s.ciphertext === 'string');
  const spec = providerSpec(deployment);
  if (sealed.length === 0 || !spec) return undefined;
  const ciphertexts = [...new Set(sealed.map((s) => s.ciphertext!))];
  if (await opensAll(backend, ref, ciphertexts)) return undefined;
  const decrypter = await decrypterForProvider(spec, options);
  const plaintexts = await decrypter.decrypt(ciphertexts).catch((error: unknown) => {
    if (error instanceof UserError) throw error;
    throw new UserError(
      `the deployment's secrets could not be decrypted with the ${decrypter.description} secrets provider it names: ${(error as Error).message}`,
      'Make sure you may decrypt that stack\'s secrets there, or export it with `--show-secrets` and import that file.',
    );
  });
  const byCiphertext = new Map(ciphertexts.map((c, i) => [c, plaintexts[i]!]));
  for (const secret of sealed) {
    secret.plaintext = byCiphertext.get(secret.ciphertext!)!;
    delete secret.ciphertext;
  }
  return decrypter.description;
}
