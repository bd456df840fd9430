/**
 * The world of the UpdateService tests: real storage (the local adapter on a temp data folder, or the AWS adapters on
 * the stand-ins: DynamoDB Local, s3rver, the KMS server), an injected clock so lease expiry is exact and instant, and
 * the checkpoint and journal builders the tests share.
 */
import { promises as fs } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { applyEnv, startAwsStandIns } from './aws-stand-ins.js';
import { createAwsClients, createAwsStorage } from '../../shared/adapters/aws/index.js';
import { createLocalStorage } from '../../shared/adapters/local/index.js';
import type { JournalEntry } from '../../shared/core/journal/index.js';
import type { StackRef } from '../../shared/core/names.js';
import type { Storage } from '../../shared/ports/index.js';
import type { ServiceDeps } from '../../shared/core/kernel/deps.js';
import { StackKeys } from '../../shared/core/secrets/secrets-envelope.js';
import { currentDeployment } from '../../shared/core/state/stack-state.js';
import type { Principal } from '../../shared/core/kernel/principal.js';
import type { UntypedDeployment } from '../../shared/core/checkpoints/types.js';
import type { UpdateService } from '../../shared/core/updates/types.js';
import { createUpdateService } from '../../shared/core/updates/update-service.js';

export interface Backend {
  storage: Storage;
  advance(ms: number): void;
  cleanup(): Promise<void>;
}

export const START = Date.parse('2026-03-01T12:00:00Z');

async function localBackend(): Promise<Backend> {
  const dataDir = await fs.mkdtemp(join(tmpdir(), 'stackyard-updates-'));
  let time = START;
  const storage = await createLocalStorage({ dataDir, now: () => time });
  return {
    storage,
    advance: (ms) => void (time += ms),
    async cleanup() {
      await storage.close();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function awsBackend(): Promise<Backend> {
  const standIns = await startAwsStandIns();
  const restoreEnv = applyEnv(standIns.env);
  const clients = createAwsClients();
  let time = START;
  const { table, bucket, kmsKeyId } = standIns;
  const storage = createAwsStorage({ table, bucket, kmsKeyId, now: () => time, clients });
  return {
    storage,
    advance: (ms) => void (time += ms),
    async cleanup() {
      clients.destroy();
      await standIns.stop();
      restoreEnv();
    },
  };
}

export const urn = (name: string) => `urn:pulumi:dev::web::t:i:R::${name}`;
export const resource = (name: string, extra: Record<string, unknown> = {}) => ({ urn: urn(name), custom: true, type: 't:i:R', ...extra });
export const deploymentWith = (...names: string[]): UntypedDeployment => ({
  version: 3,
  deployment: { manifest: { time: '2026-03-01T12:00:00Z', magic: '', version: 'v3' }, resources: names.map((n) => resource(n)) },
});
export const journalEntry = (
  kind: JournalEntry['kind'],
  sequenceID: number,
  operationID: number,
  extra: Partial<JournalEntry> = {},
): JournalEntry => ({
  version: 1,
  kind,
  sequenceID,
  operationID,
  removeOld: null,
  removeNew: null,
  ...extra,
});
export const journalBatch = (entries: JournalEntry[]) => Buffer.from(JSON.stringify({ entries }));
export async function* chunksOf(bytes: Buffer) {
  yield bytes;
}
export const resourceUrns = (deployment: UntypedDeployment) =>
  ((deployment.deployment as { resources?: { urn: string }[] }).resources ?? []).map((r) => r.urn);

/** The storage variants every UpdateService test file runs on. */
export const UPDATE_BACKENDS: [string, () => Promise<Backend>][] = [
  ['local', localBackend],
  ['aws', awsBackend],
];

/** Registers the hooks that make and clean up one backend for the calling `describe`, and returns its handles. */
export function useUpdateWorld(makeBackend: () => Promise<Backend>) {
  let backend: Backend;
  let deps: ServiceDeps;
  let updates: UpdateService;
  const alice: Principal = { login: 'alice', orgs: ['alice', 'acme'], admin: false, roles: { alice: 'admin', acme: 'member' } };
  const mallory: Principal = { login: 'mallory', orgs: ['mallory'], admin: false, roles: { mallory: 'admin' } };

  beforeAll(async () => {
    backend = await makeBackend();
    const now = () => currentTime();
    deps = { storage: backend.storage, now, keys: new StackKeys(backend.storage, { now }), options: { minLeaseMs: 1000 } };
    updates = createUpdateService(deps);
  }, 60_000);
  afterAll(async () => {
    await backend?.cleanup();
  });

  let offset = 0;
  function currentTime(): number {
    return START + offset;
  }
  function advance(ms: number): void {
    offset += ms;
    backend.advance(ms);
  }

  async function newStack(): Promise<StackRef> {
    const ref = { org: 'acme', project: 'web', stack: `s${randomUUID().slice(0, 8)}` };
    await backend.storage.stacks.create({ ...ref, id: randomUUID(), tags: { team: 'blue' }, createdAt: currentTime() });
    return ref;
  }

  const stackOf = (ref: StackRef) => backend.storage.stacks.get(ref);
  const exported = async (ref: StackRef) => currentDeployment(deps, await stackOf(ref));

  async function begin(
    ref: StackRef,
    kind: 'update' | 'preview' = 'update',
    start: { leaseDurationMs?: number; journalVersion?: number } = {},
  ) {
    const environment = { 'git.head': 'abc' };
    const { updateId } = await updates.create(alice, ref, { kind, dryRun: kind === 'preview', message: 'm', environment });
    const started = await updates.start(alice, ref, updateId, start);
    return { updateId, ...started };
  }
  return {
    get backend() {
      return backend;
    },
    get deps() {
      return deps;
    },
    get updates() {
      return updates;
    },
    alice,
    mallory,
    currentTime,
    advance,
    newStack,
    stackOf,
    exported,
    begin,
  };
}
