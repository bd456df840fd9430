import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
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
  private presigner: S3Client | undefined;

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
      return { url: await getSignedUrl(this.presigningClient(), command, { expiresIn: expiresInSeconds }), headers: { 'Content-Type': PACK_CONTENT_TYPE } };
    } catch (error) {
      throw unavailable(error);
    }
  }

  /**
   * The store's client, signing no checksum S3 does not require. The SDK's default signs a CRC32 of the (empty) body
   * into a PUT URL, and S3 then refuses every real upload to it; the pack's digest is unknown when the URL is made, so
   * no checksum can be named instead. It only signs, so it never opens a connection.
   */
  private presigningClient(): S3Client {
    const config = this.s3.config;
    this.presigner ??= new S3Client({
      region: config.region,
      credentials: config.credentials,
      forcePathStyle: config.forcePathStyle,
      ...(config.isCustomEndpoint ? { endpoint: config.endpoint } : {}),
      requestChecksumCalculation: 'WHEN_REQUIRED',
    });
    return this.presigner;
  }

  private key(org: string, name: string, versionTag: string): string {
    return `${OBJECT_LAYOUT_VERSION}/policypacks/${segment(org, 'organization')}/${segment(name, 'policy pack name')}/${segment(versionTag, 'version tag')}.tgz`;
  }
}
