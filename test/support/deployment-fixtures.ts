/** Deployments shaped like the Pulumi CLI's, for shared/core's tests. */
import type { StackRef } from '../../shared/core/names.js';
import type { UntypedDeployment } from '../../shared/core/checkpoints/types.js';

export const SECRET_SIG = '4dabf18193072939515e22adb298388d';

export function urnOf(ref: Pick<StackRef, 'project' | 'stack'>, type: string, name: string): string {
  return `urn:pulumi:${ref.stack}::${ref.project}::${type}::${name}`;
}

/**
 * A root stack resource, a provider, a bucket and an object under it (with every kind of reference), one
 * pending create, and a service secrets provider; `secretCiphertext` becomes a stack output.
 */
export function sampleDeployment(ref: StackRef, secretCiphertext = 'AAAA'): UntypedDeployment {
  const root = urnOf(ref, 'pulumi:pulumi:Stack', `${ref.project}-${ref.stack}`);
  const provider = urnOf(ref, 'pulumi:providers:aws', 'default_6_0_0');
  const bucket = urnOf(ref, 'aws:s3/bucket:Bucket', 'site');
  const object = urnOf(ref, 'aws:s3/bucket:Bucket$aws:s3/bucketObject:BucketObject', 'index');
  return {
    version: 3,
    deployment: {
      manifest: { time: '2026-01-01T00:00:00Z', magic: '', version: 'v3.200.0' },
      secrets_providers: {
        type: 'service',
        state: { url: 'https://stackyard.example', owner: ref.org, project: ref.project, stack: ref.stack },
      },
      resources: [
        {
          urn: root,
          custom: false,
          type: 'pulumi:pulumi:Stack',
          outputs: { password: { [SECRET_SIG]: '1b47061264138c4ac30d75fd1eb44270', ciphertext: secretCiphertext } },
        },
        { urn: provider, custom: true, type: 'pulumi:providers:aws', id: 'prov-1', parent: root },
        {
          urn: bucket,
          custom: true,
          type: 'aws:s3/bucket:Bucket',
          id: 'bucket-1',
          parent: root,
          provider: `${provider}::prov-1`,
        },
        {
          urn: object,
          custom: true,
          type: 'aws:s3/bucketObject:BucketObject',
          id: 'index.html',
          parent: bucket,
          provider: `${provider}::prov-1`,
          dependencies: [bucket],
          propertyDependencies: { bucket: [bucket] },
          deletedWith: bucket,
          aliases: [urnOf(ref, 'aws:s3/bucketObject:BucketObject', 'index')],
        },
      ],
      pending_operations: [
        {
          type: 'creating',
          resource: {
            urn: urnOf(ref, 'aws:s3/bucket:Bucket', 'logs'),
            custom: true,
            type: 'aws:s3/bucket:Bucket',
            parent: root,
            provider: `${provider}::prov-1`,
          },
        },
      ],
    },
  };
}

/** A deployment holding only the root stack resource. */
export function emptyStackDeployment(ref: StackRef): UntypedDeployment {
  return {
    version: 3,
    deployment: {
      manifest: { time: '2026-01-01T00:00:00Z', magic: '', version: 'v3.200.0' },
      resources: [
        { urn: urnOf(ref, 'pulumi:pulumi:Stack', `${ref.project}-${ref.stack}`), custom: false, type: 'pulumi:pulumi:Stack' },
      ],
    },
  };
}
