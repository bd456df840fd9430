import { createHash, randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { ok, type PulumiWire } from './pulumi-wire.js';

/** Deployments and call sequences shaped like the Pulumi CLI's, for the API replay tests. */

export interface Ref {
  org: string;
  project: string;
  stack: string;
}

export const SECRET_SIG = '4dabf18193072939515e22adb298388d';

export const stackPath = (ref: Ref) => `/api/stacks/${ref.org}/${ref.project}/${ref.stack}`;
export const urn = (ref: Ref, type: string, name: string) => `urn:pulumi:${ref.stack}::${ref.project}::${type}::${name}`;
export const uniqueProject = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

export function manifest() {
  return { time: '2026-11-22T10:00:00Z', magic: createHash('sha256').update('v3.248.0').digest('hex'), version: 'v3.248.0' };
}

export function serviceSecrets(url: string, ref: Ref) {
  return { type: 'service', state: { url, owner: ref.org, project: ref.project, stack: ref.stack } };
}

/** The root stack resource (with `outputs`) and `buckets` custom resources under one provider. */
export function resources(ref: Ref, buckets: number, outputs: Record<string, unknown> = {}) {
  const root = urn(ref, 'pulumi:pulumi:Stack', `${ref.project}-${ref.stack}`);
  const provider = urn(ref, 'pulumi:providers:aws', 'default_6_0_0');
  const list: Record<string, unknown>[] = [
    { urn: root, custom: false, type: 'pulumi:pulumi:Stack', outputs },
    { urn: provider, custom: true, id: 'prov-1', type: 'pulumi:providers:aws', parent: root, inputs: { region: 'eu-west-1' } },
  ];
  for (let i = 0; i < buckets; i += 1) {
    const bucket = urn(ref, 'aws:s3/bucket:Bucket', `b${i}`);
    list.push({
      urn: bucket,
      custom: true,
      id: `bucket-${i}`,
      type: 'aws:s3/bucket:Bucket',
      parent: root,
      provider: `${provider}::prov-1`,
      inputs: { bucket: `bucket-${i}` },
      outputs: { arn: `arn:aws:s3:::bucket-${i}` },
    });
  }
  return list;
}

export function deployment(url: string, ref: Ref, buckets: number, outputs: Record<string, unknown> = {}) {
  return {
    version: 3,
    deployment: {
      manifest: manifest(),
      secrets_providers: serviceSecrets(url, ref),
      resources: resources(ref, buckets, outputs),
      metadata: {},
    },
  };
}

/** `CreateStackRequest` as `pulumi stack init` sends it with service-managed secrets (no initial state). */
export async function createStack(wire: PulumiWire, token: string, ref: Ref): Promise<void> {
  ok(
    await wire.call('POST', `/api/stacks/${ref.org}/${ref.project}`, {
      auth: { token },
      body: { stackName: ref.stack, tags: { 'pulumi:project': ref.project, 'pulumi:runtime': 'nodejs' } },
    }),
  );
}

/** `UpdateProgramRequest` of `pulumi up|preview|refresh|destroy`. */
export function programRequest(ref: Ref, dryRun: boolean, message = 'replayed by the API tests') {
  return {
    name: ref.project,
    runtime: 'nodejs',
    main: '',
    description: '',
    options: { localPolicyPackPaths: null, color: 'raw', dryRun, parallel: 0, showConfig: false, showReplacementSteps: false, showNames: false, summary: false, debug: false },
    config: { 'aws:region': { string: 'eu-west-1', secret: false, object: false } },
    metadata: { message, environment: { 'exec.kind': 'cli', 'git.head': 'abc123' } },
  };
}

export type UpdateKind = 'update' | 'preview' | 'refresh' | 'destroy';

/** Create + start, as `createAndStartUpdate` does; returns the update id and lease token. */
export async function createAndStart(
  wire: PulumiWire,
  token: string,
  ref: Ref,
  kind: UpdateKind,
  options: { dryRun: boolean; journalVersion?: number; tags?: Record<string, string> },
): Promise<{ updateId: string; leaseToken: string; version: number; journalVersion: number }> {
  const created = ok(await wire.call('POST', `${stackPath(ref)}/${kind}`, { auth: { token }, body: programRequest(ref, options.dryRun) }));
  expect(created.updateID).toMatch(/\S/);
  expect(created.requiredPolicies ?? []).toEqual([]);
  const started = ok(
    await wire.call('POST', `${stackPath(ref)}/update/${created.updateID}`, {
      auth: { token },
      body: {
        tags: options.tags ?? { 'pulumi:project': ref.project, 'pulumi:runtime': 'nodejs' },
        ...(options.journalVersion !== undefined ? { journalVersion: options.journalVersion } : {}),
      },
    }),
  );
  expect(started.token).toMatch(/\S/);
  expect(typeof started.version).toBe('number');
  expect(started.tokenExpiration).toBeGreaterThan(Date.now() / 1000);
  return { updateId: created.updateID, leaseToken: started.token, version: started.version, journalVersion: started.journalVersion ?? 0 };
}

/** `events/batch` bodies: a prelude, one resource event, and the summary the history reads resource changes from. */
export function engineEvents(resourceChanges: Record<string, number>, preview: boolean) {
  const now = Math.floor(Date.now() / 1000);
  return [
    { sequence: 0, timestamp: now, preludeEvent: { config: { 'aws:region': 'eu-west-1' } } },
    { sequence: 1, timestamp: now, diagnosticEvent: { prefix: '', message: 'hello', color: 'raw', severity: 'info' } },
    {
      sequence: 2,
      timestamp: now,
      summaryEvent: { maybeCorrupt: false, durationSeconds: 1, resourceChanges, PolicyPacks: {}, isPreview: preview, result: 'succeeded' },
    },
  ];
}

/** A whole update as the CLI runs it with plain checkpoints: create, start, saves, events, complete. */
export async function runUpdate(
  wire: PulumiWire,
  token: string,
  ref: Ref,
  kind: UpdateKind,
  options: { dryRun: boolean; checkpoints?: unknown[]; resourceChanges?: Record<string, number>; status?: 'succeeded' | 'failed' },
): Promise<{ updateId: string; version: number }> {
  const { updateId, leaseToken, version } = await createAndStart(wire, token, ref, kind, { dryRun: options.dryRun });
  const lease = { updateToken: leaseToken };
  for (const checkpoint of options.checkpoints ?? []) {
    const { version: schema, deployment: body } = checkpoint as { version: number; deployment: unknown };
    ok(await wire.call('PATCH', `${stackPath(ref)}/update/${updateId}/checkpoint`, { auth: lease, body: { isInvalid: false, version: schema, deployment: body } }));
  }
  ok(
    await wire.call('POST', `${stackPath(ref)}/update/${updateId}/events/batch`, {
      auth: lease,
      body: { events: engineEvents(options.resourceChanges ?? { same: 1 }, options.dryRun) },
    }),
  );
  ok(await wire.call('POST', `${stackPath(ref)}/update/${updateId}/complete`, { auth: lease, body: { status: options.status ?? 'succeeded' } }));
  return { updateId, version };
}
