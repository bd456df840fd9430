import { InvalidInputError } from '../errors.js';
import { audited } from '../audit/audit.js';
import { formatStackRef } from '../names.js';
import { loadStack } from '../kernel/authorization.js';
import type { ServiceDeps } from '../kernel/deps.js';
import type { SecretService } from './types.js';

/** The service secrets manager's encrypt/decrypt (pulumi-service-api.md §5), on the stack's own data key. */
export function createSecretService(deps: ServiceDeps): SecretService {
  return {
    async encrypt(principal, ref, plaintexts) {
      requireByteArrays(plaintexts, 'plaintexts');
      const stack = await loadStack(deps, principal, ref, 'encrypt');
      return deps.keys.encryptForStack(stack, plaintexts);
    },

    async decrypt(principal, ref, ciphertexts) {
      requireByteArrays(ciphertexts, 'ciphertexts');
      const stack = await loadStack(deps, principal, ref, 'decrypt');
      const name = formatStackRef(stack);
      const spec = { org: stack.org, event: 'secret.decrypted', target: name, description: `decrypted ${ciphertexts.length} secret value(s) of ${name}` } as const;
      return audited(deps, principal, spec, () => deps.keys.decryptForStack(stack, ciphertexts));
    },

    async reportDecryption(principal, ref, what) {
      const stack = await loadStack(deps, principal, ref, 'view');
      const name = formatStackRef(stack);
      const spec = { org: stack.org, event: 'secret.decryption-reported', target: name, description: `the CLI reported decrypting ${String(what).slice(0, 200)} of ${name} with its own secrets provider` } as const;
      await audited(deps, principal, spec, async () => undefined);
    },
  };
}

function requireByteArrays(values: unknown, what: string): asserts values is Uint8Array[] {
  if (!Array.isArray(values) || !values.every((value) => value instanceof Uint8Array)) {
    throw new InvalidInputError(`The ${what} must be a list of base64-encoded values.`);
  }
}
