import { S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { S3PolicyPackageStore } from './s3-policy-package-store.js';

describe('S3PolicyPackageStore.uploadLocation', () => {
  it('signs a PUT of the version\'s key with no checksum of an empty body, on AWS and on a custom endpoint', async () => {
    // The SDK's default checksum mode, as on AWS: a client left to it signs a CRC32 of no body into the URL.
    const onAws = new S3Client({ region: 'eu-west-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } });
    const standIn = new S3Client({ region: 'eu-west-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' }, endpoint: 'http://127.0.0.1:4569', forcePathStyle: true });

    const aws = new URL((await new S3PolicyPackageStore(onAws, 'bucket').uploadLocation('acme', 'pack', '1.0.0', 300)).url);
    const local = new URL((await new S3PolicyPackageStore(standIn, 'bucket').uploadLocation('acme', 'pack', '1.0.0', 300)).url);

    expect(aws.host).toBe('bucket.s3.eu-west-1.amazonaws.com');
    expect(aws.pathname).toBe('/v1/policypacks/acme/pack/1.0.0.tgz');
    expect(local.host).toBe('127.0.0.1:4569');
    expect(local.pathname).toBe('/bucket/v1/policypacks/acme/pack/1.0.0.tgz');
    for (const url of [aws, local]) {
      expect([...url.searchParams.keys()].filter((name) => /checksum/i.test(name))).toEqual([]);
      expect(url.searchParams.get('X-Amz-Expires')).toBe('300');
      expect(url.searchParams.get('X-Amz-SignedHeaders')).toContain('host');
    }
    onAws.destroy();
    standIn.destroy();
  });
});
