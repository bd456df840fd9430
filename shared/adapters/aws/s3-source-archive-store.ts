import { DeleteObjectsCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { ConflictError, InvalidInputError } from '../../core/errors.js';
import type { ArchiveUploadLocation, DeclaredArchive, SourceArchiveStore } from '../../ports/source-archive-store.js';
import { errorName } from './errors.js';
import { OBJECT_LAYOUT_VERSION, unavailable } from './s3-checkpoint-store.js';

const SEGMENT = /^[A-Za-z0-9._-]{1,200}$/;
const ARCHIVE_CONTENT_TYPE = 'application/gzip';
/** The prefix of every archive: the bucket's lifecycle rule for it is the retention (infra/, docs/deployments.md). */
export const SOURCE_ARCHIVE_PREFIX = `${OBJECT_LAYOUT_VERSION}/deploysources/`;

function segment(value: string, what: string): string {
  if (!SEGMENT.test(value) || value === '.' || value === '..') throw new InvalidInputError(`Invalid ${what} '${value.slice(0, 100)}'.`);
  return value;
}

function refusedAsTaken(error: unknown): boolean {
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  const name = errorName(error);
  return name === 'PreconditionFailed' || name === 'ConditionalRequestConflict' || status === 412;
}

/**
 * Archives in the state bucket at `v1/deploysources/<stackId>/<archiveId>.tgz`, stored as uploaded. Every write is
 * conditional on the key being free (`If-None-Match: *`), the presigned one too, so an archive is never replaced.
 */
export class S3SourceArchiveStore implements SourceArchiveStore {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async putArchive(stackId: string, archiveId: string, archive: Uint8Array): Promise<void> {
    const command = new PutObjectCommand({ Bucket: this.bucket, Key: this.key(stackId, archiveId), Body: archive, ContentType: ARCHIVE_CONTENT_TYPE, IfNoneMatch: '*' });
    try {
      await this.s3.send(command);
    } catch (error) {
      if (refusedAsTaken(error)) throw new ConflictError(`Source archive '${archiveId}' already exists; archives are never replaced.`, undefined, { cause: error });
      throw unavailable(error);
    }
  }

  async getArchive(stackId: string, archiveId: string): Promise<Uint8Array | undefined> {
    try {
      const response = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.key(stackId, archiveId) }));
      return await response.Body!.transformToByteArray();
    } catch (error) {
      if (errorName(error) === 'NoSuchKey' || errorName(error) === 'NotFound') return undefined;
      throw unavailable(error);
    }
  }

  async deleteStackArchives(stackId: string): Promise<void> {
    const prefix = `${SOURCE_ARCHIVE_PREFIX}${segment(stackId, 'stack id')}/`;
    try {
      let token: string | undefined;
      do {
        const page = await this.s3.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }));
        const keys = (page.Contents ?? []).flatMap((object) => (object.Key ? [{ Key: object.Key }] : []));
        if (keys.length > 0) await this.s3.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: keys, Quiet: true } }));
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    } catch (error) {
      throw unavailable(error);
    }
  }

  /**
   * A presigned PutObject of the archive's key for exactly the declared bytes (the signed Content-Length, and the
   * SHA-256 S3 checks the body against), only while the key is free: the client uploads straight to the bucket, not
   * through Lambda. Naming the checksum also keeps the SDK from signing a CRC32 of an empty body into the URL.
   */
  async uploadLocation(stackId: string, archiveId: string, declared: DeclaredArchive, expiresInSeconds: number): Promise<ArchiveUploadLocation> {
    const command = new PutObjectCommand({
      Bucket: this.bucket,
      Key: this.key(stackId, archiveId),
      ContentType: ARCHIVE_CONTENT_TYPE,
      ContentLength: declared.size,
      ChecksumSHA256: Buffer.from(declared.sha256, 'hex').toString('base64'),
      IfNoneMatch: '*',
    });
    try {
      const url = await getSignedUrl(this.s3, command, { expiresIn: expiresInSeconds, signableHeaders: new Set(['content-type', 'content-length', 'if-none-match']) });
      return { url, headers: { 'Content-Type': ARCHIVE_CONTENT_TYPE, 'If-None-Match': '*' } };
    } catch (error) {
      throw unavailable(error);
    }
  }

  private key(stackId: string, archiveId: string): string {
    return `${SOURCE_ARCHIVE_PREFIX}${segment(stackId, 'stack id')}/${segment(archiveId, 'archive id')}.tgz`;
  }
}
