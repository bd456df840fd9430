import { TTL_ATTRIBUTE, stackyardTableDefinition } from '../../shared/adapters/aws/index.js';
import type { StackyardWiring } from './stacks/stackyard-stack.js';

/**
 * Encryption-context keys the core puts on every data key (the stack's immutable id, see docs/storage-aws.md). The
 * functions' KMS permission is conditioned on exactly these keys.
 */
export const DATA_KEY_CONTEXT_KEYS = ['stackId'] as const;

/** The storage half of the wiring, taken from the AWS adapter so the table cannot drift from the code. */
export function storageWiring(): Pick<StackyardWiring, 'keyDesign' | 'timeToLiveAttribute' | 'encryptionContextKeys'> {
  return {
    keyDesign: stackyardTableDefinition('stackyard'),
    timeToLiveAttribute: TTL_ATTRIBUTE,
    encryptionContextKeys: DATA_KEY_CONTEXT_KEYS,
  };
}
