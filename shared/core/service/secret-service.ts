import { InvalidInputError } from '../errors.js';
import { loadStack } from './authorization.js';
import type { ServiceDeps } from './create-services.js';
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
      return deps.keys.decryptForStack(stack, ciphertexts);
    },
  };
}

function requireByteArrays(values: unknown, what: string): asserts values is Uint8Array[] {
  if (!Array.isArray(values) || !values.every((value) => value instanceof Uint8Array)) {
    throw new InvalidInputError(`The ${what} must be a list of base64-encoded values.`);
  }
}
