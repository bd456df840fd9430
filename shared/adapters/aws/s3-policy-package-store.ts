import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { InvalidInputError } from '../../core/errors.js';
import type { PackageUploadLocation, PolicyPackageStore } from '../../ports/policy-store.js';
import { errorName } from './errors.js';
import { OBJECT_LAYOUT_VERSION, unavailable } from './s3-checkpoint-store.js';

const SEGMENT = /^[A-Za-z0-9._-]{1,100}$/;
const PACK_CONTENT_TYPE = 'application/gzip';

function segment(value: string, what: string): string {
  if (!SEGMENT.test(value) || value === '.' || value === '..') throw new InvalidInputError(`Invalid ${what} '${value.slice(0, 100)}'.`);
  return value;
}

/**
 * Pack tarballs in the state bucket at `v1/policypacks/<org>/<name>/<versionTag>.tgz`, stored as uploaded (already
 * gzip'd). A PutObject is atomic: readers see the whole object or none.
 */
export class S3PolicyPackageStore implements PolicyPackageStore {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async putPackage(org: string, name: string, versionTag: string, tarball: Uint8Array): Promise<void> {
    const key = this.key(org, name, versionTag);
    try {
      await this.s3.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: tarball, ContentType: PACK_CONTENT_TYPE }));
    } catch (error) {
      throw unavailable(error);
    }
  }

  async getPackage(org: string, name: string, versionTag: string): Promise<Uint8Array | undefined> {
    try {
      const response = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.key(org, name, versionTag) }));
      return await response.Body!.transformToByteArray();
    } catch (error) {
      if (errorName(error) === 'NoSuchKey' || errorName(error) === 'NotFound') return undefined;
      throw unavailable(error);
    }
  }

  async deletePackage(org: string, name: string, versionTag: string): Promise<void> {
    try {
      await this.s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key(org, name, versionTag) }));
    } catch (error) {
      throw unavailable(error);
    }
  }

  /** A presigned PutObject of the version's key: the client uploads straight to the bucket, not through Lambda. */
  async uploadLocation(org: string, name: string, versionTag: string, expiresInSeconds: number): Promise<PackageUploadLocation> {
    const command = new PutObjectCommand({ Bucket: this.bucket, Key: this.key(org, name, versionTag), ContentType: PACK_CONTENT_TYPE });
    try {
      return { url: await getSignedUrl(this.s3, command, { expiresIn: expiresInSeconds }), headers: { 'Content-Type': PACK_CONTENT_TYPE } };
    } catch (error) {
      throw unavailable(error);
    }
  }

  private key(org: string, name: string, versionTag: string): string {
    return `${OBJECT_LAYOUT_VERSION}/policypacks/${segment(org, 'organization')}/${segment(name, 'policy pack name')}/${segment(versionTag, 'version tag')}.tgz`;
  }
}
