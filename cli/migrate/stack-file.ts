/**
 * Moving a `Pulumi.<stack>.yaml` to the target stack's key: every `secure:` value decrypted with the provider the
 * file (or its source stack) names, re-encrypted with the target stack's key in one batch, the old provider settings
 * removed, the original kept next to it as `Pulumi.<stack>.yaml.bak`. Comments and order are kept; the new file
 * replaces the old one atomically and only ever holds ciphertexts.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { isDomainError } from '../../shared/core/errors.js';
import { ApiError } from '../api-client/api-error.js';
import type { Backend, StackRef } from '../backend/backend.js';
import { collectCiphertexts, mapSecureValues, StackConfigFile } from '../project/stack-config.js';
import type { SecretsDecrypter, StackFileSecrets } from '../secrets/source-secrets.js';

export interface StackFilePlan {
  exists: boolean;
  secrets: number;
  settings: StackFileSecrets;
}

export type StackFileOutcome = 'missing' | 'unchanged' | 'already-migrated' | 'rewritten';

export async function inspectStackFile(path: string): Promise<StackFilePlan> {
  const file = await StackConfigFile.load(path);
  const secrets = file.entries().flatMap(([, value]) => collectCiphertexts(value)).length;
  return { exists: file.exists, secrets, settings: file.secretsSettings() };
}

async function opensAll(backend: Backend, ref: StackRef, ciphertexts: string[]): Promise<boolean> {
  try {
    await backend.decrypt(ref, ciphertexts);
    return true;
  } catch (error) {
    if ((isDomainError(error) && error.status === 400) || (error instanceof ApiError && error.status === 400)) return false;
    throw error;
  }
}

/** A backup name that does not exist yet (a repeated migration never overwrites the first, original backup). */
async function backupPath(path: string): Promise<string> {
  const first = `${path}.bak`;
  const taken = await fs.stat(first).then(() => true, () => false);
  return taken ? `${path}.bak-${Date.now()}` : first;
}

export async function migrateStackFile(
  path: string,
  target: Backend,
  ref: StackRef,
  openSource: (settings: StackFileSecrets) => Promise<SecretsDecrypter>,
): Promise<{ outcome: StackFileOutcome; secrets: number; backup?: string }> {
  const file = await StackConfigFile.load(path);
  if (!file.exists) return { outcome: 'missing', secrets: 0 };
  const entries = file.entries();
  const ciphertexts = [...new Set(entries.flatMap(([, value]) => collectCiphertexts(value)))];
  const settings = file.secretsSettings();
  const named = Object.keys(settings).length > 0;
  if (!named && ciphertexts.length === 0) return { outcome: 'unchanged', secrets: 0 };
  if (!named && (await opensAll(target, ref, ciphertexts))) return { outcome: 'already-migrated', secrets: ciphertexts.length };

  if (ciphertexts.length > 0) {
    const plaintexts = await (await openSource(settings)).decrypt(ciphertexts);
    const sealed = await target.encrypt(ref, plaintexts);
    const mapping = new Map(ciphertexts.map((c, i) => [c, sealed[i]!]));
    for (const [key, value] of entries) {
      if (collectCiphertexts(value).length === 0) continue;
      file.set({ key, path: [] }, mapSecureValues(value, (c) => ({ secure: mapping.get(c)! })));
    }
  }
  file.clearSecretsSettings();
  const backup = await backupPath(path);
  await fs.copyFile(path, backup);
  const temp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  await fs.writeFile(temp, file.text());
  await fs.rename(temp, path);
  return { outcome: 'rewritten', secrets: ciphertexts.length, backup };
}
