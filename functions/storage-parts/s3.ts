import { createS3Client } from '../../shared/adapters/aws/clients.js';
import { S3CheckpointStore } from '../../shared/adapters/aws/s3-checkpoint-store.js';
import { S3PolicyPackageStore } from '../../shared/adapters/aws/s3-policy-package-store.js';
import { S3SourceArchiveStore } from '../../shared/adapters/aws/s3-source-archive-store.js';
import type { StorageParts } from '../lambda-storage.js';

/** Checkpoints, journals, event logs, exports, policy pack tarballs and runs' program archives in S3 (STACKYARD_BUCKET). */
export const s3Parts: StorageParts = (options, _now, instrument) => {
  const s3 = instrument(createS3Client());
  const parts = {
    checkpoints: new S3CheckpointStore(s3, options.bucket),
    policyPackages: new S3PolicyPackageStore(s3, options.bucket),
    sourceArchives: new S3SourceArchiveStore(s3, options.bucket),
  };
  return { parts, destroy: () => s3.destroy() };
};
