/** Config keys as `pulumi config` shows them, and the config a history entry recorded (`{"ns:key": {string, secret, object}}`), as `pulumi` prints config: `{value?, objectValue?, secret}`. */
import { decryptStateSecrets } from '../backend/deployment-secrets.js';
import type { Backend } from '../backend/backend.js';
import type { StackRef } from '../../shared/core/names.js';
import type { Project } from '../project/project.js';
import { collectCiphertexts, mapSecureValues } from '../project/stack-config.js';

/** `name` for the project's own keys, `namespace:name` for the others, as `pulumi config` shows keys. */
export function prettyKey(key: string, project: Pick<Project, 'name'>): string {
  return key.startsWith(`${project.name}:`) ? key.slice(project.name.length + 1) : key;
}

interface HistoryConfigValue {
  string?: string;
  secret?: boolean;
  object?: boolean;
}

/** One config value as `config --json` and `stack history --json` show it; `value` of a secret only when revealed. */
export interface ShownConfigValue {
  value?: string;
  objectValue?: unknown;
  secret: boolean;
}

/** A history entry's config, secrets decrypted on the stack's key only with `reveal`. */
export async function shownHistoryConfig(backend: Backend, ref: StackRef, recorded: Record<string, unknown>, reveal: boolean): Promise<Record<string, ShownConfigValue>> {
  const config: Record<string, ShownConfigValue> = {};
  for (const [key, raw] of Object.entries(recorded)) {
    const v = raw as HistoryConfigValue;
    const entry: ShownConfigValue = { secret: v.secret === true };
    if (!entry.secret || reveal) {
      let text = v.string ?? '';
      if (entry.secret && reveal) {
        if (v.object) {
          const parsed = JSON.parse(text) as unknown;
          const ciphertexts = collectCiphertexts(parsed);
          const plain = ciphertexts.length ? await decryptStateSecrets(backend, ref, ciphertexts) : [];
          const byCiphertext = new Map(ciphertexts.map((c, i) => [c, plain[i]]));
          text = JSON.stringify(mapSecureValues(parsed, (c) => byCiphertext.get(c)));
        } else {
          [text] = await decryptStateSecrets(backend, ref, [text]);
        }
      }
      entry.value = text;
      if (v.object && text !== '') entry.objectValue = JSON.parse(text);
    }
    config[key] = entry;
  }
  return config;
}
