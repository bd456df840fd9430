/**
 * `config set-all`: several values in one write, as Pulumi's: `--plaintext key=value` and `--secret key=value`
 * (repeatable; `--path` reads the keys as paths), or `--json` in the shape `config --json` prints. Secrets are
 * encrypted in one batch, and nothing is written unless every value is valid.
 */
import type { StackRef } from '../../shared/core/names.js';
import type { Backend } from '../backend/backend.js';
import { UsageError, UserError } from '../output/errors.js';
import { parseConfigKey, typedPathValue, type ConfigKey } from '../project/stack-config.js';
import { configTarget } from './config.js';
import type { CommandHandler } from './types.js';

/** A value to set: plain data, or a plaintext to encrypt as `{secure}`. */
interface Pending {
  key: ConfigKey;
  value?: unknown;
  secret?: string;
}

/** `key=value`, or `"key.with=sign"=value` / `'…'=value` when the key holds `=` (Pulumi's parseKeyValuePair). */
function splitPair(pair: string): [string, string] {
  const quote = pair[0] === '"' || pair[0] === "'" ? pair[0] : undefined;
  const rest = quote ? pair.slice(1) : pair;
  const at = rest.indexOf(quote ? `${quote}=` : '=');
  if (at < 0) throw new UserError('config value must be in the form [key]=[value]', `Got '${pair}'; pass --plaintext key=value or --secret key=value.`);
  return [rest.slice(0, at), rest.slice(at + (quote ? 2 : 1))];
}

function fromPairs(pairs: unknown, secret: boolean, project: string, usePath: boolean): Pending[] {
  return ((pairs as string[] | undefined) ?? []).map((pair) => {
    const [name, value] = splitPair(pair);
    const key = parseConfigKey(name, project, usePath);
    return secret ? { key, secret: value } : { key, value: key.path.length > 0 ? typedPathValue(value) : value };
  });
}

/** `{"ns:key": {"value": "…", "objectValue"?: …, "secret": bool}}`, each with its `value`. */
function fromJson(text: string, project: string): Pending[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UserError(`could not parse --json argument: ${(error as Error).message}`, 'Pass the object `stackyard config --json --show-secrets` prints.');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new UserError('could not parse --json argument: it must be a JSON object of keys', 'Pass the object `stackyard config --json --show-secrets` prints.');
  }
  return Object.entries(parsed as Record<string, { value?: unknown; objectValue?: unknown; secret?: unknown }>).map(([name, entry]) => {
    if (entry?.value === undefined || entry.value === null) {
      throw new UserError(`value for --json object key "${name}" is nil`, 'Every key needs its value: list them with `config --json --show-secrets`.');
    }
    if (typeof entry.value !== 'string') throw new UserError(`could not parse --json argument: the value of "${name}" must be a string`);
    const key = parseConfigKey(name, project, false);
    if (entry.secret === true) return { key, secret: entry.value };
    if (entry.objectValue === undefined || entry.objectValue === null) return { key, value: entry.value };
    try {
      return { key, value: JSON.parse(entry.value) as unknown };
    } catch {
      throw new UserError(`could not set --json config for "${name}": its value is not the JSON text of its objectValue`);
    }
  });
}

/** Encrypts every pending secret with the stack's key, in one call. */
async function encryptSecrets(backend: Backend, ref: StackRef, pending: Pending[]): Promise<void> {
  const secrets = pending.filter((p) => p.secret !== undefined);
  if (secrets.length === 0) return;
  const ciphertexts = await backend.encrypt(ref, secrets.map((p) => p.secret!));
  secrets.forEach((p, i) => (p.value = { secure: ciphertexts[i]! }));
}

export const configSetAll: CommandHandler = async (ctx, _args, opts) => {
  const usePath = opts.path === true;
  const listed = [opts.plaintext, opts.secret].some((list) => Array.isArray(list) && list.length > 0);
  if (typeof opts.json === 'string' && (listed || usePath)) {
    throw new UsageError('the --json option cannot be used with the --plaintext, --secret or --path options');
  }
  const { backend, ref, project, file } = await configTarget(ctx, opts);
  // Pulumi's order: plaintexts, then secrets, then --json; a later value for a key wins.
  const pending = [
    ...fromPairs(opts.plaintext, false, project.name, usePath),
    ...fromPairs(opts.secret, true, project.name, usePath),
    ...(typeof opts.json === 'string' ? fromJson(opts.json, project.name) : []),
  ];
  await encryptSecrets(backend, ref, pending);
  for (const { key, value } of pending) file.set(key, value);
  await file.save();
};
