import { useState } from 'preact/hooks';
import { api } from './api.js';

/** Pulumi's marker of a secret value in state (`sig.Secret`), with its ciphertext beside it. */
const SECRET_SIG_KEY = '4dabf18193072939515e22adb298388d';
const SECRET_SIG_VALUE = '1b47061264138c4ac30d75fd1eb44270';

export interface SecretValue {
  ciphertext?: string;
  plaintext?: string;
}

export function isSecret(value: unknown): value is SecretValue {
  return typeof value === 'object' && value !== null && (value as Record<string, unknown>)[SECRET_SIG_KEY] === SECRET_SIG_VALUE;
}

/** A value with every secret shown as `[secret]`; plaintexts (unusual in state) are never shown either. */
export function masked(value: unknown): unknown {
  if (isSecret(value)) return '[secret]';
  if (Array.isArray(value)) return value.map(masked);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, masked(inner)]));
  }
  return value;
}

/**
 * A secret output: masked until someone asks, then decrypted by the stack's decrypt route, which decides whether
 * this member may. `mayReveal` (the caller's permission allows decrypting) only spares a reader a button that the
 * route would refuse; the route's decision is the one that counts.
 */
export function SecretOutput({ name, value, stackApiPath, mayReveal }: { name: string; value: SecretValue; stackApiPath: string; mayReveal: boolean }) {
  const [plain, setPlain] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  async function reveal() {
    setError(undefined);
    try {
      if (!value.ciphertext) throw new Error('This secret has no ciphertext to decrypt.');
      const { plaintext } = await api<{ plaintext: string }>(`${stackApiPath}/decrypt`, {
        method: 'POST',
        body: { ciphertext: value.ciphertext },
      });
      setPlain(new TextDecoder().decode(Uint8Array.from(atob(plaintext), (c) => c.charCodeAt(0))));
    } catch (caught) {
      setError((caught as Error).message);
    }
  }
  if (plain !== undefined) {
    return (
      <span>
        <code class="value revealed">{plain}</code>{' '}
        <button type="button" class="link" onClick={() => setPlain(undefined)}>
          Hide
        </button>
      </span>
    );
  }
  const mask = (
    <code class="value secret" aria-label={`${name} is a secret`}>
      [secret]
    </code>
  );
  if (!mayReveal) return mask;
  return (
    <span>
      {mask}{' '}
      <button type="button" class="link" onClick={() => void reveal()} aria-label={`Reveal ${name}`}>
        Reveal
      </button>
      {error && (
        <span role="alert" class="error-inline">
          {' '}
          {error}
        </span>
      )}
    </span>
  );
}
