import { createKmsClient } from '../../shared/adapters/aws/clients.js';
import { KmsKeyService } from '../../shared/adapters/aws/kms-key-service.js';
import type { StorageParts } from '../lambda-storage.js';

/** The per-stack data keys and the hooks' sealed secrets under the deployment's KMS key (STACKYARD_KMS_KEY_ID). */
export const kmsParts: StorageParts = (options, now, instrument) => {
  const kms = instrument(createKmsClient());
  return { parts: { keys: new KmsKeyService(kms, options.kmsKeyId, now) }, destroy: () => kms.destroy() };
};
