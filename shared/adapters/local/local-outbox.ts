import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { OutboxEvent } from '../../ports/index.js';
import { validateOutboxEvents } from '../../core/hooks/outbox-events.js';
import { safeSegment, type DataDir } from './files.js';

/** The record write an outbox batch belongs to, and how to tell afterwards whether that write happened. */
export type OutboxCommit =
  | { record: 'stack'; stackId: string; revision: number }
  | { record: 'stack-deleted'; stackId: string }
  | { record: 'update'; stackId: string; updateId: string; revision: number }
  | { record: 'plan'; stackId: string; planId: string; revision: number };

/** Where the approval store keeps a plan's record (local-approval-store.ts), which tells whether a plan write happened. */
export function planRecordPath(dir: DataDir, stackId: string, planId: string): string {
  return dir.path('approvals', safeSegment(stackId, 'stack id'), 'plans', `${safeSegment(planId, 'plan id')}.json`);
}

interface StagedBatch {
  commit: OutboxCommit;
  events: OutboxEvent[];
}

/**
 * The local outbox. A file system cannot rename two files at once, so an event batch is first *staged* (with the
 * write it belongs to), then the record is written, then the events are *published* to `hooks/outbox/ready/`. A
 * crash in between leaves a staged batch, which recovery settles by looking at the record: published if the write
 * happened (the record is at the batch's revision, or gone for a delete), dropped otherwise. Recovery runs under
 * the record's lock before every write of that kind, so no later write can move the record past the batch first.
 */
export class LocalOutbox {
  constructor(private readonly dir: DataDir) {}

  /** Runs `apply` (the record write, caller holds the record's lock) with `events` staged around it. */
  async around<T>(events: readonly OutboxEvent[] | undefined, commit: OutboxCommit, apply: () => Promise<T>): Promise<T> {
    if (commit.record === 'update') await this.recoverUpdates(commit.stackId);
    else if (commit.record === 'plan') await this.recoverPlans(commit.stackId);
    else await this.recoverStacks();
    if (!events || events.length === 0) return apply();
    const batch: StagedBatch = { commit, events: validateOutboxEvents(events) };
    const staged = this.stagedPath(commit, randomBytes(8).toString('hex'));
    await this.dir.writeJson(staged, batch);
    try {
      const result = await apply();
      await this.publish(staged, batch);
      return result;
    } catch (error) {
      await this.settle(staged, batch);
      throw error;
    }
  }

  /** Settles every staged stack batch; the caller holds the `stacks` lock. */
  async recoverStacks(): Promise<void> {
    const folder = this.dir.path('hooks', 'outbox', 'staged', 'stacks');
    for (const file of await this.dir.list(folder)) await this.settleFile(join(folder, file));
  }

  /** Settles the staged update batches of one stack; the caller holds `updates-<stackId>`. */
  async recoverUpdates(stackId: string): Promise<void> {
    const folder = this.dir.path('hooks', 'outbox', 'staged', 'updates', safeSegment(stackId, 'stack id'));
    for (const file of await this.dir.list(folder)) await this.settleFile(join(folder, file));
  }

  /** Settles the staged plan batches of one stack; the caller holds the approvals lock. */
  async recoverPlans(stackId: string): Promise<void> {
    const folder = this.dir.path('hooks', 'outbox', 'staged', 'plans', safeSegment(stackId, 'stack id'));
    for (const file of await this.dir.list(folder)) await this.settleFile(join(folder, file));
  }

  /** Stack ids with staged update batches (for recovery outside a write). */
  async stagedUpdateStacks(): Promise<string[]> {
    return this.dir.list(this.dir.path('hooks', 'outbox', 'staged', 'updates'));
  }

  readyPath(eventId: string): string {
    return this.dir.path('hooks', 'outbox', 'ready', `${safeSegment(eventId, 'event id')}.json`);
  }

  readyFolder(): string {
    return this.dir.path('hooks', 'outbox', 'ready');
  }

  private async settleFile(path: string): Promise<void> {
    const batch = await this.dir.readJson<StagedBatch>(path);
    if (batch) await this.settle(path, batch);
  }

  private async settle(path: string, batch: StagedBatch): Promise<void> {
    if (await this.committed(batch.commit)) await this.publish(path, batch);
    else await this.dir.remove(path);
  }

  private async publish(path: string, batch: StagedBatch): Promise<void> {
    for (const event of batch.events) {
      // Create-if-absent: a batch published twice (crash after some events) keeps each event once.
      const temp = await this.dir.writeTemp(JSON.stringify({ event }));
      await this.dir.publishExclusive(temp, this.readyPath(event.id));
    }
    await this.dir.remove(path);
  }

  private async committed(commit: OutboxCommit): Promise<boolean> {
    if (commit.record === 'plan') {
      const plan = await this.dir.readJson<{ revision: number }>(planRecordPath(this.dir, commit.stackId, commit.planId));
      return plan?.revision === commit.revision;
    }
    if (commit.record === 'update') {
      const update = await this.dir.readJson<{ revision: number }>(
        this.dir.path('updates', commit.stackId, `${commit.updateId}.json`),
      );
      return update?.revision === commit.revision;
    }
    const stack = await this.dir.readJson<{ revision: number }>(this.dir.path('stacks', 'by-id', `${commit.stackId}.json`));
    return commit.record === 'stack-deleted' ? stack === undefined : stack?.revision === commit.revision;
  }

  private stagedPath(commit: OutboxCommit, batchId: string): string {
    if (commit.record === 'plan') return this.dir.path('hooks', 'outbox', 'staged', 'plans', safeSegment(commit.stackId, 'stack id'), `${batchId}.json`);
    return commit.record === 'update'
      ? this.dir.path('hooks', 'outbox', 'staged', 'updates', safeSegment(commit.stackId, 'stack id'), `${batchId}.json`)
      : this.dir.path('hooks', 'outbox', 'staged', 'stacks', `${batchId}.json`);
  }
}
