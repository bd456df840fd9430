import type { StackRecord } from '../../ports/stack-store.js';
import type { StackKeyring } from '../kernel/deps.js';
import { isSecretValue, jsonEqual } from './diff.js';
import type { PropertyChange, StateDiff } from './types.js';

/** How a secret is shown to a caller who may not (or did not ask to) see it, as Pulumi's display shows it. */
export const SECRET_MASK = '[secret]';

type Change = PropertyChange & { old?: unknown; new?: unknown };

function changesOf(diff: StateDiff): Change[][] {
  return [...diff.replaced.map((r) => r.diffs), ...diff.updated.map((u) => u.diffs)];
}

/** Every stored secret inside `value`, depth first. */
function collectSecrets(value: unknown, into: Record<string, unknown>[]): void {
  if (isSecretValue(value)) into.push(value);
  else if (Array.isArray(value)) for (const item of value) collectSecrets(item, into);
  else if (typeof value === 'object' && value !== null) for (const item of Object.values(value)) collectSecrets(item, into);
}

/** `value` with every secret replaced by what `show` makes of it. */
function replaceSecrets(value: unknown, show: (secret: Record<string, unknown>) => unknown): unknown {
  if (isSecretValue(value)) return show(value);
  if (Array.isArray(value)) return value.map((item) => replaceSecrets(item, show));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, replaceSecrets(item, show)]));
  }
  return value;
}

/**
 * The plaintext value of every encrypted secret in the diff, decrypted in one call on the stack's key. A secret
 * stored in plaintext (`{sig, plaintext}`, a state written without a secrets manager) is read as it is.
 */
async function plaintextsOf(keys: StackKeyring, stack: StackRecord, secrets: Record<string, unknown>[]): Promise<Map<Record<string, unknown>, unknown>> {
  const encrypted = secrets.filter((s) => typeof s.ciphertext === 'string');
  const plaintexts = encrypted.length
    ? await keys.decryptForStack(stack, encrypted.map((s) => Buffer.from(s.ciphertext as string, 'base64')))
    : [];
  const values = new Map<Record<string, unknown>, unknown>();
  encrypted.forEach((secret, i) => values.set(secret, parseSecret(Buffer.from(plaintexts[i]!).toString('utf8'))));
  for (const secret of secrets) if (typeof secret.plaintext === 'string') values.set(secret, parseSecret(secret.plaintext));
  return values;
}

function parseSecret(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Settles the secrets of a diff computed on stored values. A secret re-encrypted with the same plaintext has a new
 * ciphertext, so a change between two secrets is kept only if their plaintexts differ (the service decrypts them
 * to compare; the caller learns only that the value changed). Then every secret is shown as `[secret]`, or, with
 * `reveal`, as its plaintext value.
 */
export async function settleSecrets(keys: StackKeyring, stack: StackRecord, diff: StateDiff, reveal: boolean): Promise<StateDiff> {
  const secrets: Record<string, unknown>[] = [];
  for (const changes of changesOf(diff)) {
    for (const change of changes) {
      const bothSecret = isSecretValue(change.old) && isSecretValue(change.new);
      if (reveal || bothSecret) {
        collectSecrets(change.old, secrets);
        collectSecrets(change.new, secrets);
      }
    }
  }
  const plaintexts = secrets.length ? await plaintextsOf(keys, stack, secrets) : new Map<Record<string, unknown>, unknown>();
  const show = (secret: Record<string, unknown>) => (reveal ? plaintexts.get(secret) : SECRET_MASK);
  const settle = (changes: Change[]): PropertyChange[] =>
    changes
      .filter((c) => !(isSecretValue(c.old) && isSecretValue(c.new) && plaintexts.has(c.old) && plaintexts.has(c.new) && jsonEqual(plaintexts.get(c.old), plaintexts.get(c.new))))
      .map((c) => ({
        ...c,
        ...('old' in c ? { old: replaceSecrets(c.old, show) } : {}),
        ...('new' in c ? { new: replaceSecrets(c.new, show) } : {}),
      }));
  return {
    ...diff,
    replaced: diff.replaced.map((r) => ({ ...r, diffs: settle(r.diffs) })),
    updated: diff.updated.map((u) => ({ ...u, diffs: settle(u.diffs) })).filter((u) => u.diffs.length > 0),
  };
}
