import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AcquireRequest, TokenRef } from '../../shared/ports/index.js';
import type { Outcome, WorkerReply, WorkerRequest } from './local-lease-worker.js';

const WORKERS = 5;
const ROUNDS = 100;
const ACQUIRERS = 20;
const workerScript = fileURLToPath(new URL('./local-lease-worker.ts', import.meta.url));

type Payload = WorkerRequest extends infer R ? (R extends WorkerRequest ? Omit<R, 'seq'> : never) : never;

class Worker {
  private seq = 0;
  private readonly pending = new Map<number, (outcomes: Outcome[]) => void>();
  readonly ready: Promise<void>;

  constructor(readonly child: ChildProcess) {
    this.ready = new Promise((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
      child.on('message', (reply: WorkerReply) => {
        if (reply.seq === 0) resolve();
        this.pending.get(reply.seq)?.(reply.outcomes);
        this.pending.delete(reply.seq);
      });
    });
  }

  send(payload: Payload): Promise<Outcome[]> {
    const seq = ++this.seq;
    return new Promise((resolve) => {
      this.pending.set(seq, resolve);
      this.child.send({ ...payload, seq } as WorkerRequest);
    });
  }
}

let dataDir: string;
let workers: Worker[];

beforeAll(async () => {
  dataDir = await fs.mkdtemp(join(tmpdir(), 'stackyard-race-'));
  workers = Array.from(
    { length: WORKERS },
    () => new Worker(fork(workerScript, [dataDir], { execArgv: ['--import', 'tsx'], stdio: 'inherit' })),
  );
  await Promise.all(workers.map((w) => w.ready));
});

afterAll(async () => {
  for (const worker of workers ?? []) worker.child.kill();
  await fs.rm(dataDir, { recursive: true, force: true });
});

function acquireRequest(stackId: string, durationMs = 60_000): AcquireRequest {
  return { stackId, updateId: randomUUID(), holder: 'racer', durationMs };
}

async function one(worker: Worker, payload: Payload): Promise<Outcome> {
  return (await worker.send(payload))[0];
}

async function validateEverywhere(ref: TokenRef): Promise<Outcome[]> {
  return Promise.all(workers.map((w) => one(w, { op: 'validate', ref })));
}

describe('local lease race across processes', () => {
  it(`${ROUNDS} rounds x ${ACQUIRERS} concurrent acquirers in ${WORKERS} processes: exactly one winner`, async () => {
    const winners: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const stackId = randomUUID();
      const requests = Array.from({ length: ACQUIRERS }, () => acquireRequest(stackId));
      const perWorker = workers.map((w, i) =>
        w.send({ op: 'acquire', requests: requests.filter((_, j) => j % WORKERS === i) }),
      );
      const outcomes = (await Promise.all(perWorker)).flat();
      winners.push(outcomes.filter((o) => o.ok).length);
      expect(outcomes.filter((o) => !o.ok).every((o) => !o.ok && o.kind === 'lease-held')).toBe(true);
    }
    expect(winners).toEqual(Array(ROUNDS).fill(1));
  });

  it('rejects released, revoked and taken-over tokens in every process; a renewed token keeps working', async () => {
    const [a, b, c] = workers;
    for (let round = 0; round < 5; round++) {
      const stackId = randomUUID();

      const released = acquireRequest(stackId);
      const r1 = await one(a, { op: 'acquire', requests: [released] });
      const releasedRef = { stackId, updateId: released.updateId, token: r1.ok ? r1.token! : '' };
      expect((await one(b, { op: 'release', ref: releasedRef })).ok).toBe(true);
      expect((await validateEverywhere(releasedRef)).map((o) => o.ok)).toEqual(Array(WORKERS).fill(false));
      expect((await one(c, { op: 'renew', ref: releasedRef, durationMs: 60_000 })).ok).toBe(false);

      const revoked = acquireRequest(stackId);
      const r2 = await one(b, { op: 'acquire', requests: [revoked] });
      const revokedRef = { stackId, updateId: revoked.updateId, token: r2.ok ? r2.token! : '' };
      await one(c, { op: 'revoke', stackId, updateId: revoked.updateId });
      expect((await validateEverywhere(revokedRef)).map((o) => o.ok)).toEqual(Array(WORKERS).fill(false));

      const short = acquireRequest(stackId, 300);
      const r3 = await one(c, { op: 'acquire', requests: [short] });
      const shortRef = { stackId, updateId: short.updateId, token: r3.ok ? r3.token! : '' };
      const renewed = await one(a, { op: 'renew', ref: shortRef, durationMs: 600 });
      expect(renewed).toMatchObject({ ok: true, token: shortRef.token });
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect((await validateEverywhere(shortRef)).map((o) => o.ok)).toEqual(Array(WORKERS).fill(true));
      const contested = await one(b, { op: 'acquire', requests: [acquireRequest(stackId)] });
      expect(contested).toEqual({ ok: false, kind: 'lease-held' });

      await new Promise((resolve) => setTimeout(resolve, 300));
      const taker = acquireRequest(stackId);
      const r4 = await one(b, { op: 'acquire', requests: [taker] });
      expect(r4.ok).toBe(true);
      expect((await validateEverywhere(shortRef)).map((o) => o.ok)).toEqual(Array(WORKERS).fill(false));
      expect((await one(a, { op: 'renew', ref: shortRef, durationMs: 60_000 })).ok).toBe(false);
      const takerRef = { stackId, updateId: taker.updateId, token: r4.ok ? r4.token! : '' };
      expect((await validateEverywhere(takerRef)).map((o) => o.ok)).toEqual(Array(WORKERS).fill(true));
    }
  });
});
