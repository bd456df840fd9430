/**
 * Copying configuration between two stacks' files: each secret is decrypted with the source stack's key and encrypted
 * again with the target's (a ciphertext of one stack never decrypts under another's key), one batch each way.
 */
import type { StackRef } from '../../shared/core/names.js';
import type { Backend } from '../backend/backend.js';
import { decryptConfig, type ConfigEntries } from './config-values.js';
import { stackConfigPath, type Project } from './project.js';
import { mapSecureValues, StackConfigFile } from './stack-config.js';

/** `entries` with every secret of `from` encrypted again with the key of `to`; `fileName` names the source in errors. */
export async function reencryptEntries(backend: Backend, from: StackRef, to: StackRef, entries: ConfigEntries, fileName: string): Promise<ConfigEntries> {
  const plaintexts = await decryptConfig(backend, from, entries, fileName);
  if (plaintexts.size === 0) return entries;
  const ciphertexts = [...plaintexts.keys()];
  const reencrypted = await backend.encrypt(to, ciphertexts.map((c) => plaintexts.get(c)!));
  const mapping = new Map(ciphertexts.map((c, i) => [c, reencrypted[i]!]));
  return entries.map(([key, value]) => [key, mapSecureValues(value, (c) => ({ secure: mapping.get(c)! }))]);
}

/** Copies every value of `from`'s stack file into `to`'s (keeping `to`'s other values); `false` when there was none. */
export async function copyStackConfig(backend: Backend, project: Project, from: StackRef, to: StackRef): Promise<boolean> {
  const source = await StackConfigFile.load(stackConfigPath(project, from.stack));
  const entries = source.entries();
  if (entries.length === 0) return false;
  const copied = await reencryptEntries(backend, from, to, entries, `Pulumi.${from.stack}.yaml`);
  const target = await StackConfigFile.load(stackConfigPath(project, to.stack));
  for (const [key, value] of copied) target.set({ key, path: [] }, value);
  await target.save();
  return true;
}
