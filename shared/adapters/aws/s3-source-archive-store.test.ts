import { S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { S3SourceArchiveStore } from './s3-source-archive-store.js';

describe('S3SourceArchiveStore.uploadLocation', () => {
  it('signs the PUT for the declared length and SHA-256 only, with no checksum of an empty body', async () => {
    // The SDK's default checksum mode, as on AWS: without a named checksum it signs a CRC32 of no body into the URL.
    const s3 = new S3Client({ region: 'us-east-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } });
    const store = new S3SourceArchiveStore(s3, 'bucket');
    const sha256 = 'ab'.repeat(32);

    const location = await store.uploadLocation('stack-1', 'archive-1', { size: 1234, sha256 }, 300);

    const url = new URL(location.url);
    expect(url.pathname).toBe('/v1/deploysources/stack-1/archive-1.tgz');
    expect(url.searchParams.get('X-Amz-SignedHeaders')?.split(';')).toEqual(expect.arrayContaining(['content-length', 'if-none-match', 'content-type']));
    expect(url.searchParams.get('x-amz-checksum-sha256')).toBe(Buffer.from(sha256, 'hex').toString('base64'));
    expect(url.searchParams.get('x-amz-checksum-crc32')).toBeNull();
    expect(location.headers).toEqual({ 'Content-Type': 'application/gzip', 'If-None-Match': '*' });
    s3.destroy();
  });
});
