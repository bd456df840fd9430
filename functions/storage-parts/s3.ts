import { createS3Client } from '../../shared/adapters/aws/clients.js';
import { S3CheckpointStore } from '../../shared/adapters/aws/s3-checkpoint-store.js';
import type { StorageParts } from '../lambda-storage.js';

/** Checkpoints, journals, event logs and exports in S3 (STACKYARD_BUCKET). */
export const s3Parts: StorageParts = (options, _now, instrument) => {
  const s3 = instrument(createS3Client());
  return { parts: { checkpoints: new S3CheckpointStore(s3, options.bucket) }, destroy: () => s3.destroy() };
};
