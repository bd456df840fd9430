/**
 * The session an engine run gets from `createOperationBackend`, on a real local backend (temp data folder): lease
 * settings from the environment, engine events in bounded batches with a bounded number in flight, and the `lost`
 * signal when the update is cancelled under the run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineEvent } from '../engine/display/engine-events.js';
import { LocalBackend, LOCAL_ORG } from './local-backend.js';
import { createOperationBackend, leaseSettings, type OperationTarget } from './operation-backend.js';

const ref = { org: LOCAL_ORG, project: 'demo', stack: 'dev' };
const outcome = { ok: true, status: 'succeeded' as const, summary: {}, resourceCount: 0 };

function events(from: number, count: number): EngineEvent[] {
  return Array.from({ length: count }, (_, i) => ({ sequence: from + i, timestamp: 0, diagnosticEvent: { message: `m${from + i}` } }) as unknown as EngineEvent);
}

describe('leaseSettings', () => {
  it('asks for 60 s renewed every 15 s by default', () => {
    expect(leaseSettings({})).toEqual({ durationSeconds: 60, renewEveryMs: 15_000 });
  });

  it('takes the lease and renewal interval from the environment', () => {
    expect(leaseSettings({ STACKYARD_LEASE_SECONDS: '4' })).toEqual({ durationSeconds: 4, renewEveryMs: 1_000 });
    expect(leaseSettings({ STACKYARD_LEASE_SECONDS: '10', STACKYARD_LEASE_RENEW_SECONDS: '0.5' })).toEqual({ durationSeconds: 10, renewEveryMs: 500 });
  });

  it('refuses a lease that is not a positive number, naming the variable', () => {
    expect(() => leaseSettings({ STACKYARD_LEASE_SECONDS: 'soon' })).toThrow(/STACKYARD_LEASE_SECONDS must be a positive number of seconds/);
    expect(() => leaseSettings({ STACKYARD_LEASE_RENEW_SECONDS: '-1' })).toThrow(/STACKYARD_LEASE_RENEW_SECONDS/);
  });
});

describe('operation sessions on a local backend', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'stackyard-opbackend-'));
  let backend: LocalBackend;
  const batches: number[][] = [];
  let inFlight = 0;
  let maxInFlight = 0;

  const target = (): OperationTarget => ({
    backend: new Proxy(backend, {
      get(real, key) {
        if (key !== 'recordEvents') return Reflect.get(real, key, real);
        return async (r: typeof ref, updateId: string, token: string, batch: { sequence: number }[]) => {
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          batches.push(batch.map((e) => e.sequence));
          await new Promise((resolve) => setTimeout(resolve, 20));
          try {
            return await real.recordEvents(r, updateId, token, batch);
          } finally {
            inFlight--;
          }
        };
      },
    }),
    ref,
    program: { name: 'demo', runtime: 'nodejs' },
    config: {},
    tags: {},
    environment: {},
    lease: { durationSeconds: 2, renewEveryMs: 100 },
  });

  beforeAll(async () => {
    backend = await LocalBackend.open(`file://${dataDir}`, dataDir);
    await backend.createStack(ref, {});
  });

  afterAll(async () => {
    await backend.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('delivers every event before complete resolves, at most 50 per batch and 3 batches at a time', async () => {
    batches.length = 0;
    const session = await createOperationBackend(target()).begin('update', false);

    session.recordEvents!(events(0, 1));
    for (let i = 1; i < 230; i += 10) session.recordEvents!(events(i, 10));
    await session.complete(outcome);

    expect(batches.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 231 }, (_, i) => i));
    expect(Math.max(...batches.map((b) => b.length))).toBeLessThanOrEqual(50);
    expect(maxInFlight).toBeLessThanOrEqual(3);
    expect(maxInFlight).toBeGreaterThan(1);
    expect((await backend.getStack(ref)).activeUpdate).toBeUndefined();
  });

  it('sends a partial batch after a pause, without waiting for complete', async () => {
    batches.length = 0;
    const session = await createOperationBackend(target()).begin('update', true);

    session.recordEvents!(events(0, 3));
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const sentBeforeComplete = batches.flat();
    await session.complete(outcome);

    expect(sentBeforeComplete).toEqual([0, 1, 2]);
  });

  it('keeps the lease past its duration by renewing it', async () => {
    const session = await createOperationBackend(target()).begin('update', false);

    await new Promise((resolve) => setTimeout(resolve, 2_600));

    expect(session.lost!.aborted).toBe(false);
    await expect(session.complete(outcome)).resolves.toBeUndefined();
  });

  it('fires `lost` with the reason when the update is cancelled under the run', async () => {
    const session = await createOperationBackend(target()).begin('update', false);
    const { activeUpdate } = await backend.getStack(ref);

    await backend.cancelUpdate(ref, activeUpdate!);
    // A renewal may already have noticed while cancel was returning.
    if (!session.lost!.aborted) await new Promise<void>((resolve) => session.lost!.addEventListener('abort', () => resolve(), { once: true }));

    expect((session.lost!.reason as Error).message).toMatch(/the service refused the lease renewal/);
  });

  it("offers the stack's tags as they stand once the update started, for the policy packs", async () => {
    await backend.setTags(ref, { foo: 'bar' });
    // what the CLI sends at the start: the stack's tags merged with the project's
    const session = await createOperationBackend({ ...target(), tags: { foo: 'bar', hello: 'world' } }).begin('update', true);

    const tags = await session.stackTags!();
    await session.complete(outcome);

    expect(tags).toMatchObject({ foo: 'bar', hello: 'world' });
  });
});
