import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { UntypedDeployment } from '../../cli/engine/state/deployment.js';
import { waitForLease } from '../../cli/engine/lease-wait.js';
import {
  OperationUsageError,
  runOperation,
  type BeginOptions,
  type EngineEvent,
  type OperationBackend,
  type OperationCommand,
  type OperationFlags,
  type OperationOutcome,
} from '../../cli/engine/operation.js';
import { LeaseHeldError, type LeaseHolder } from '../../shared/core/errors.js';
import { replayJournal } from '../../shared/core/journal/replayer.js';
import type { JournalEntry } from '../../shared/core/journal/types.js';
import type { VersionedDeployment } from '../../shared/core/checkpoints/types.js';
import { FIXTURES, TESTPROV_DIR, testCrypter } from './engine-harness.js';

const PROGRAM = join(FIXTURES, 'programs/scenario');

/** A backend keeping one stack's state in memory and recording the operations it was asked for. */
function memoryBackend() {
  const log: string[] = [];
  let state: UntypedDeployment | undefined;
  const backend: OperationBackend = {
    crypter: testCrypter(),
    async begin(kind, dryRun) {
      log.push(`begin ${kind}${dryRun ? ' (dry run)' : ''}`);
      return {
        base: state,
        persister: dryRun ? undefined : { save: async (c) => void (state = JSON.parse(c.text) as UntypedDeployment) },
        complete: async (o) => void log.push(`complete ${kind} ${o.ok ? 'ok' : 'failed'}`),
      };
    },
  };
  return { backend, log, state: () => state };
}

async function run(backend: OperationBackend, command: OperationCommand, flags: OperationFlags, step = 1) {
  let out = '';
  const code = await runOperation({
    command,
    flags,
    program: { rootDir: PROGRAM, project: 'scenario', stack: 'op' },
    config: { 'scenario:step': { value: String(step), secret: false } },
    projectPlugins: [{ name: 'testprov', path: TESTPROV_DIR }],
    backend,
    write: (t) => (out += t),
  });
  return { code, out };
}

describe('runOperation', () => {
  it('refuses to update without --yes when it cannot ask', async () => {
    const m = memoryBackend();
    await expect(run(m.backend, 'up', {})).rejects.toThrow(OperationUsageError);
    expect(m.state()).toBeUndefined();
  }, 30_000);

  it('previews, updates, honours --expect-no-changes and destroys', async () => {
    const m = memoryBackend();
    const up = await run(m.backend, 'up', { yes: true });
    expect(up.code).toBe(0);
    expect(up.out).toContain('Previewing update');
    expect(up.out).toMatch(/\+ \d+ created/);
    expect(m.log.slice(0, 4)).toEqual(['begin preview (dry run)', 'complete preview ok', 'begin update', 'complete update ok']);

    const same = await run(m.backend, 'preview', { expectNoChanges: true });
    expect(same.code).toBe(0);
    const changed = await run(m.backend, 'preview', { expectNoChanges: true }, 2);
    expect(changed.code).toBe(1);
    expect(changed.out).toContain('no changes were expected');

    const destroy = await run(m.backend, 'destroy', { yes: true, skipPreview: true });
    expect(destroy.code).toBe(0);
    expect((m.state()?.deployment as { resources?: unknown[] }).resources ?? []).toEqual([]);
    expect(m.log.at(-1)).toBe('complete destroy ok');
  }, 60_000);
});

const SLOW = join(import.meta.dirname, 'fixtures/slow');

/**
 * A backend behaving like the service with journaling on: saves are journal entries, replayed onto the base at
 * `complete`; every engine event is recorded per operation.
 */
function serviceLikeBackend(options: { lost?: (events: EngineEvent[]) => AbortSignal | undefined; failComplete?: boolean } = {}) {
  let state: UntypedDeployment | undefined;
  const operations: { kind: string; dryRun: boolean; events: EngineEvent[]; entries: JournalEntry[]; outcome?: OperationOutcome }[] = [];
  const backend: OperationBackend = {
    crypter: testCrypter(),
    async begin(kind, dryRun) {
      const op = { kind, dryRun, events: [] as EngineEvent[], entries: [] as JournalEntry[], outcome: undefined as OperationOutcome | undefined };
      operations.push(op);
      const base = state;
      return {
        base,
        journal: dryRun ? undefined : { append: async (entries) => void op.entries.push(...entries) },
        recordEvents: (events) => void op.events.push(...events),
        lost: options.lost?.(op.events),
        complete: async (outcome) => {
          op.outcome = outcome;
          if (!dryRun) state = replayJournal(base as VersionedDeployment | undefined, op.entries, { now: Date.now }) as UntypedDeployment;
          if (options.failComplete) throw new Error('403: the update token is no longer valid');
        },
      };
    },
  };
  return { backend, operations, state: () => state };
}

function thingNames(state: UntypedDeployment | undefined): string[] {
  return (((state?.deployment as { resources?: { urn: string; type: string; delete?: boolean }[] })?.resources) ?? [])
    .filter((r) => r.type === 'testprov:index:Thing' && !r.delete)
    .map((r) => r.urn.split('::').pop()!)
    .sort();
}

function payloadKeys(e: EngineEvent): string[] {
  return Object.keys(e).filter((k) => k !== 'sequence' && k !== 'timestamp');
}

describe('runOperation with a service-like session', () => {
  it('saves through the journal, sends engine events without secrets, and completes with a status', async () => {
    const m = serviceLikeBackend();
    const run = async (command: OperationCommand, flags: OperationFlags, step: number) =>
      runOperation({
        command,
        flags,
        program: { rootDir: PROGRAM, project: 'scenario', stack: 'svc' },
        config: { 'scenario:step': { value: String(step), secret: false }, 'scenario:password': { value: 'pw-plaintext', secret: true } },
        projectPlugins: [{ name: 'testprov', path: TESTPROV_DIR }],
        backend: m.backend,
        write: () => undefined,
      });

    expect(await run('up', { yes: true }, 1)).toBe(0);
    expect(thingNames(m.state())).toEqual(['a', 'b', 'c', 'd', 'g-child']);
    expect(await run('up', { yes: true, skipPreview: true }, 3)).toBe(0);
    expect(thingNames(m.state())).toEqual(['a', 'b', 'd', 'e', 'g-child']);
    expect(JSON.stringify(m.state())).not.toContain('pw-plaintext');

    expect(m.operations.map((o) => [o.kind, o.dryRun, o.outcome?.status])).toEqual([
      ['preview', true, 'succeeded'],
      ['update', false, 'succeeded'],
      ['update', false, 'succeeded'],
    ]);
    expect(m.operations[0]!.entries).toEqual([]);
    for (const op of m.operations) {
      expect(op.events.map((e) => e.sequence)).toEqual(op.events.map((_, i) => i));
      for (const e of op.events) expect(payloadKeys(e)).toHaveLength(1);
      expect(payloadKeys(op.events[0]!)).toEqual(['preludeEvent']);
      expect(op.events.at(-1)).toMatchObject({ summaryEvent: { isPreview: op.dryRun, result: 'succeeded', resourceChanges: op.outcome!.summary } });
      expect(JSON.stringify(op.events)).not.toContain('pw-plaintext');
      expect(JSON.stringify(op.events)).not.toContain('s3cr3t-out');
    }
    expect(m.operations[0]!.events[0]).toMatchObject({ preludeEvent: { config: { 'scenario:password': '[secret]', 'scenario:step': '1' } } });
    const replace = m.operations[2]!.events.find((e) => 'resourcePreEvent' in e && e.resourcePreEvent.metadata.op === 'replace');
    expect(replace).toMatchObject({ resourcePreEvent: { metadata: { urn: expect.stringMatching(/::a$/), keys: ['r_key'], old: { id: expect.stringMatching(/^a-/) } } } });

    expect(await run('destroy', { yes: true, skipPreview: true }, 3)).toBe(0);
    expect(thingNames(m.state())).toEqual([]);
  }, 60_000);

  it('stops cleanly when the session loses its lease, and completes as cancelled', async () => {
    const lost = new AbortController();
    const m = serviceLikeBackend({
      failComplete: true,
      lost: (events) => {
        const watch = setInterval(() => {
          // Arrange the loss while `slow` is in flight and `fast` is done, however loaded the machine is.
          const slowStarted = events.some((e) => 'resourcePreEvent' in e && e.resourcePreEvent.metadata.urn.endsWith('::slow'));
          const fastDone = events.some((e) => 'resOutputsEvent' in e && e.resOutputsEvent.metadata.urn.endsWith('::fast'));
          if (slowStarted && fastDone) {
            clearInterval(watch);
            lost.abort(new Error('renew_lease answered 403: the update was cancelled'));
          }
        }, 20);
        return lost.signal;
      },
    });
    let out = '';
    const code = await runOperation({
      command: 'up',
      flags: { yes: true, skipPreview: true },
      program: { rootDir: SLOW, project: 'slow', stack: 'lost' },
      config: { 'slow:delay': { value: '1500', secret: false } },
      projectPlugins: [{ name: 'testprov', path: TESTPROV_DIR }],
      backend: m.backend,
      write: (t) => (out += t),
    });
    expect(code).toBe(1);
    expect(out).toContain('error: the update was cancelled or its lease expired: renew_lease answered 403: the update was cancelled\n');
    expect(m.operations[0]!.outcome?.status).toBe('cancelled');
    expect(m.operations[0]!.events.at(-1)).toMatchObject({ summaryEvent: { result: 'cancelled' } });
    expect(thingNames(m.state())).toEqual(['fast', 'slow']);
  }, 60_000);

  it("prints one preview digest for preview --json; up --json prints its preview's digest, then the update's events a line each", async () => {
    const m = memoryBackend();
    const base = { program: { rootDir: SLOW, project: 'slow', stack: 'json' }, config: {}, projectPlugins: [{ name: 'testprov', path: TESTPROV_DIR }], backend: m.backend };
    let digestText = '';
    expect(await runOperation({ ...base, command: 'preview', flags: { json: true }, write: (t) => (digestText += t) })).toBe(0);
    const digest = JSON.parse(digestText) as { steps: { op: string; urn: string }[]; changeSummary: Record<string, number>; duration: number };
    // The default provider is internal to Pulumi's engine: neither listed nor counted.
    expect(digest.steps.map((s) => `${s.op} ${s.urn.split('::').slice(-2).join(' ')}`).sort()).toEqual([
      'create pulumi:pulumi:Stack slow-json',
      'create testprov:index:Thing after',
      'create testprov:index:Thing fast',
      'create testprov:index:Thing slow',
    ]);
    expect(digest.changeSummary).toEqual({ create: 4 });
    expect(digest.duration).toBeGreaterThan(0);

    let lines = '';
    let notes = '';
    expect(await runOperation({ ...base, command: 'up', flags: { json: true, yes: true }, write: (t) => (lines += t), writeErr: (t) => (notes += t) })).toBe(0);
    // as Pulumi's ShowEvents: the preview phase is a digest (one document, closed by a `}` line), the update lines
    const digestEnd = lines.indexOf('\n}\n') + 3;
    expect(JSON.parse(lines.slice(0, digestEnd))).toMatchObject({ changeSummary: { create: 4 } });
    const events = lines.slice(digestEnd).trimEnd().split('\n').map((l) => JSON.parse(l) as EngineEvent);
    expect(events.filter((e) => 'preludeEvent' in e)).toHaveLength(1);
    expect(events.filter((e) => 'summaryEvent' in e).map((e) => ('summaryEvent' in e ? e.summaryEvent.isPreview : undefined))).toEqual([false]);
    expect(events.filter((e) => 'resOutputsEvent' in e && e.resOutputsEvent.metadata.op === 'create').length).toBe(4);
    expect(notes).toBe('');
  }, 60_000);

  it('asks the backend to wait for the lease with --wait, and reports each holder', async () => {
    const requested: (BeginOptions | undefined)[] = [];
    const holders = [holderOf('u1', 'alice'), holderOf('u1', 'alice'), holderOf('u2', 'bob')];
    const backend: OperationBackend = {
      crypter: testCrypter(),
      async begin(_kind, dryRun, options) {
        requested.push(options);
        const start = async () => {
          const h = dryRun ? undefined : holders.shift();
          if (h) throw new LeaseHeldError(h);
          return { base: undefined, persister: { save: async () => undefined }, complete: async () => undefined };
        };
        return options?.wait ? waitForLease(start, { ...options.wait, sleep: async () => undefined }) : start();
      },
    };
    let out = '';
    const code = await runOperation({
      command: 'refresh',
      flags: { yes: true, wait: { timeoutMs: 60_000 } },
      program: { rootDir: SLOW, project: 'slow', stack: 'wait' },
      config: {},
      backend,
      write: (t) => (out += t),
    });
    expect(code).toBe(0);
    expect(requested.map((o) => o?.wait?.timeoutMs)).toEqual([undefined, 60_000]);
    expect(out.match(/waiting for update \S+ by \S+/g)).toEqual(['waiting for update u1 by alice', 'waiting for update u2 by bob']);
  }, 30_000);
});

function holderOf(updateId: string, holder: string): LeaseHolder {
  return { updateId, holder, startedAt: 0, expiresAt: 300_000 };
}
