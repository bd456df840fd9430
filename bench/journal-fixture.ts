/**
 * Shared fixture for the journal benchmarks: a 10,000-resource stack with realistic, poorly compressible state, and
 * an update that changes exactly one resource, as a full-checkpoint client and as our journaling client send it.
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { JournalWriter } from '../shared/core/journal/index.js';
import type { DeploymentV3, ResourceV3, VersionedDeployment } from '../shared/core/checkpoints/types.js';
import type { JournalEntry } from '../shared/core/journal/index.js';

const hex = (seed: string, n = 16) => createHash('sha256').update(seed).digest('hex').slice(0, n);
const STACK = 'urn:pulumi:prod::bench::pulumi:pulumi:Stack::bench-prod';
const PROVIDER = 'urn:pulumi:prod::bench::pulumi:providers:aws::default_6_0_0';

/** A base deployment of `count` resources (one stack, one provider, the rest buckets with dependencies). */
export function baseDeployment(count: number): VersionedDeployment {
  const resources: ResourceV3[] = [
    { urn: STACK, custom: false, type: 'pulumi:pulumi:Stack', outputs: { region: 'eu-west-1' } },
    { urn: PROVIDER, custom: true, id: hex('provider', 36), type: 'pulumi:providers:aws', inputs: { region: 'eu-west-1', version: '6.0.0' }, outputs: { region: 'eu-west-1', version: '6.0.0' } },
  ];
  for (let i = 2; i < count; i++) {
    const name = `bucket-${i}-${hex(`n${i}`, 7)}`;
    const deps = i > 3 ? [resources[2 + ((i * 7919) % (i - 2))]!.urn] : [];
    resources.push({
      urn: `urn:pulumi:prod::bench::aws:s3/bucket:Bucket::${name}`,
      custom: true,
      id: name,
      type: 'aws:s3/bucket:Bucket',
      inputs: { bucket: name, acl: 'private', tags: { team: `t${i % 17}`, cost: hex(`c${i}`, 8) }, forceDestroy: false },
      outputs: {
        arn: `arn:aws:s3:::${name}`, bucket: name, bucketDomainName: `${name}.s3.amazonaws.com`,
        hostedZoneId: 'Z1BKCTXD74EZPE', id: name, region: 'eu-west-1', requestPayer: 'BucketOwner',
        tags: { team: `t${i % 17}`, cost: hex(`c${i}`, 8) }, versioning: { enabled: i % 3 === 0, mfaDelete: false },
        etag: hex(`etag${i}`, 32),
      },
      parent: STACK,
      dependencies: deps,
      provider: `${PROVIDER}::${hex('provider', 36)}`,
      propertyDependencies: { bucket: [], tags: deps },
      created: '2026-11-01T10:00:00Z',
      modified: '2026-11-01T10:00:00Z',
    });
  }
  const deployment: DeploymentV3 = {
    manifest: { time: '2026-11-01T10:00:00Z', magic: hex('v3.248.0', 64), version: 'v3.248.0' },
    secrets_providers: { type: 'service', state: { url: 'https://stackyard.example', owner: 'acme', project: 'bench', stack: 'prod' } },
    resources,
    metadata: {},
  };
  return { version: 3, deployment };
}

/** The update: resource `changed` gets new tags; everything else is a same step. */
export function runUpdate(base: VersionedDeployment, changed: number): {
  final: VersionedDeployment;
  checkpoints: Buffer[];
  journalBatches: Buffer[];
  entries: JournalEntry[];
} {
  const resources = base.deployment.resources!;
  const newState: ResourceV3 = { ...resources[changed]!, inputs: { ...(resources[changed]!.inputs as object), acl: 'public-read' }, modified: '2026-11-22T12:00:00Z' };

  // Full checkpoints, as Pulumi's snapshot manager writes them: unchanged same steps are elided, the update writes
  // when it begins (pending operation) and when it succeeds, and elided writes after that are flushed at the end.
  const deploymentWith = (res: ResourceV3[], pending?: DeploymentV3['pending_operations']): VersionedDeployment => ({
    version: 3,
    deployment: { ...base.deployment, resources: res, ...(pending ? { pending_operations: pending } : {}) },
  });
  const body = (d: VersionedDeployment) => gzipSync(JSON.stringify({ isInvalid: false, version: d.version, deployment: d.deployment }));
  const done: ResourceV3[] = [];
  const snap = (pending?: DeploymentV3['pending_operations']) => deploymentWith([...done, ...resources.slice(done.length)], pending);
  const checkpoints: Buffer[] = [];
  let elided = false;
  resources.forEach((r, i) => {
    if (i === changed) {
      checkpoints.push(body(snap([{ resource: newState, type: 'updating' }])));
      done.push(newState);
      checkpoints.push(body(snap()));
      elided = false;
    } else {
      done.push(r);
      elided = true;
    }
  });
  if (elided) checkpoints.push(body(snap()));
  const after = resources.map((r, i) => (i === changed ? newState : r));

  const writer = new JournalWriter();
  writer.secretsManager(base.deployment.secrets_providers!);
  resources.forEach((r, i) => {
    if (i === changed) {
      const op = writer.begin({ resource: newState, type: 'updating' });
      writer.success(op, { state: newState, old: { base: i } });
    } else {
      writer.same(i, r, false);
    }
  });
  const entries = writer.take();
  const journalBatches: Buffer[] = [];
  for (let i = 0; i < entries.length; i += 100) journalBatches.push(gzipSync(JSON.stringify({ entries: entries.slice(i, i + 100) })));
  return { final: deploymentWith(after), checkpoints, journalBatches, entries };
}
