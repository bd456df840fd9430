/**
 * A stack's effective configuration: `Pulumi.<stack>.yaml` over the project's defaults in `Pulumi.yaml`, secrets
 * decrypted with the stack's key through the backend (one batch), and the forms the engine, the update record and
 * `stackyard config` need.
 */
import { isDomainError } from '../../shared/core/errors.js';
import { formatStackRef, type StackRef } from '../../shared/core/names.js';
import { ApiError } from '../api-client/api-error.js';
import type { Backend } from '../backend/backend.js';
import { goJson } from '../engine/go-formats/go-json.js';
import type { StackConfig } from '../engine/config/program-config.js';
import { UserError } from '../output/errors.js';
import type { Project } from './project.js';
import { collectCiphertexts, isSecureValue, mapSecureValues, type StackConfigFile } from './stack-config.js';

export type ConfigEntries = [string, unknown][];

/**
 * The stack file's values plus the project's `config:` defaults and values for keys the stack does not set (Pulumi's
 * `ApplyProjectConfig`), sorted by key.
 */
export function effectiveConfig(project: Project, file: StackConfigFile): ConfigEntries {
  const entries = new Map(file.entries());
  for (const decl of project.config) {
    const value = decl.default ?? decl.value;
    if (!entries.has(decl.key) && value !== undefined) entries.set(decl.key, value);
  }
  return [...entries.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function isBadCiphertext(error: unknown): boolean {
  return (isDomainError(error) && error.status === 400) || (error instanceof ApiError && error.status === 400);
}

/**
 * Decrypts every secret in `entries` in one batch. When the batch is refused, each key is tried alone so the error
 * names the value that does not belong to this stack (typically copied from another stack's file).
 */
export async function decryptConfig(backend: Backend, ref: StackRef, entries: ConfigEntries, fileName: string): Promise<Map<string, string>> {
  const ciphertexts = [...new Set(entries.flatMap(([, value]) => collectCiphertexts(value)))];
  if (ciphertexts.length === 0) return new Map();
  try {
    const plaintexts = await backend.decrypt(ref, ciphertexts);
    return new Map(ciphertexts.map((c, i) => [c, plaintexts[i]!]));
  } catch (error) {
    if (!isBadCiphertext(error)) throw error;
    for (const [key, value] of entries) {
      const own = collectCiphertexts(value);
      if (own.length === 0) continue;
      const fails = await backend.decrypt(ref, own).then(
        () => false,
        (e: unknown) => {
          if (isBadCiphertext(e)) return true;
          throw e;
        },
      );
      if (fails && own.some((c) => c.startsWith('v1:'))) {
        throw new UserError(
          `cannot decrypt configuration value '${key}' in ${fileName}: it was encrypted by a Pulumi passphrase or ` +
            `cloud (awskms://) secrets provider, not with the key of stack '${formatStackRef(ref)}'`,
          'Move the file\'s secrets to this stack\'s key: `stackyard stack change-secrets-provider default` (with ' +
            'PULUMI_CONFIG_PASSPHRASE set for a passphrase file); see docs/migration.md.',
        );
      }
      if (fails) {
        throw new UserError(
          `cannot decrypt configuration value '${key}' in ${fileName}: it was not encrypted with the key of stack ` +
            `'${formatStackRef(ref)}' (copied from another stack's file?) or it was altered`,
          `Set it again with \`stackyard config set --secret ${key} <value>\`.`,
        );
      }
    }
    throw error;
  }
}

/**
 * The text a program receives for a value: strings as they are, other scalars printed, objects as JSON with sorted
 * keys (Pulumi marshals config objects as Go maps, so a program sees the same text whatever the file's key order).
 */
export function programText(value: unknown): { text: string; object: boolean } {
  if (typeof value === 'string') return { text: value, object: false };
  if (value === null || typeof value !== 'object') return { text: String(value), object: false };
  return { text: goJson(value), object: true };
}

/** What the engine hands the program (`PULUMI_CONFIG`): decrypted, with secret keys marked. */
export function engineConfig(entries: ConfigEntries, plaintexts: Map<string, string>): StackConfig {
  const config: StackConfig = {};
  for (const [key, value] of entries) {
    const secret = collectCiphertexts(value).length > 0;
    const plain = mapSecureValues(value, (c) => plaintexts.get(c));
    const { text, object } = programText(plain);
    config[key] = { value: text, secret, ...(object ? { object } : {}) };
  }
  return config;
}

/** The config recorded with an update (Pulumi's `{string, secret, object}`), secrets still encrypted. */
export function updateConfig(entries: ConfigEntries): Record<string, { string: string; secret: boolean; object: boolean }> {
  const config: Record<string, { string: string; secret: boolean; object: boolean }> = {};
  for (const [key, value] of entries) {
    if (isSecureValue(value)) {
      config[key] = { string: value.secure, secret: true, object: false };
    } else {
      const { text, object } = programText(value);
      config[key] = { string: text, secret: collectCiphertexts(value).length > 0, object };
    }
  }
  return config;
}
