import { join } from 'node:path';
import { ConflictError, NotFoundError } from '../../core/errors.js';
import type {
  DeliveryAttempt,
  DeliveryOutcome,
  DeliveryRecord,
  DeliveryRef,
  HookRecord,
  HookScope,
  HookStore,
  NewDelivery,
  OutboxEvent,
} from '../../ports/index.js';
import { safeSegment, type DataDir } from './files.js';
import type { LocalOutbox } from './local-outbox.js';

/** A ready outbox event and the claim on it. */
interface ReadyEvent {
  event: OutboxEvent;
  claimedUntil?: number;
}

/** Where one pending delivery lives, indexed in `hooks/due/` so dispatchers need not walk every delivery. */
interface DueEntry {
  org: string;
  scope: string;
  hook: string;
  id: string;
}

/**
 * `hooks/defs/<org>/<scope>/<name>.json` (scope `org` or `stack-<stackId>`), the outbox under `hooks/outbox/`
 * (local-outbox.ts), deliveries at `hooks/deliveries/<org>/<scope>/<hook>/<id>.json` and an index of pending ones
 * in `hooks/due/`. Claims and attempts are read-modify-writes under the `hooks-outbox` / `hooks-deliveries-<org>`
 * locks.
 */
export class LocalHookStore implements HookStore {
  constructor(
    private readonly dir: DataDir,
    private readonly outbox: LocalOutbox,
  ) {}

  async create(hook: HookRecord): Promise<HookRecord> {
    const path = this.hookPath(hook, hook.name);
    await this.dir.createJson(path, hook, `Hook '${hook.name}'`);
    return hook;
  }

  async get(scope: HookScope, name: string): Promise<HookRecord> {
    return this.dir.mustReadJson<HookRecord>(this.hookPath(scope, name), `Hook '${name}'`);
  }

  async listByOrg(org: string): Promise<HookRecord[]> {
    const root = this.dir.path('hooks', 'defs', safeSegment(org, 'organization'));
    const hooks: HookRecord[] = [];
    for (const scope of await this.dir.list(root)) hooks.push(...(await this.readHooks(join(root, scope))));
    return hooks;
  }

  async listForStack(org: string, stackId: string): Promise<HookRecord[]> {
    const root = this.dir.path('hooks', 'defs', safeSegment(org, 'organization'));
    const own = join(root, scopeSegment({ org, stackId }));
    return [...(await this.readHooks(join(root, 'org'))), ...(await this.readHooks(own))];
  }

  async delete(scope: HookScope, name: string): Promise<void> {
    const path = this.hookPath(scope, name);
    if (!(await this.dir.readJson(path))) throw new NotFoundError(`Hook '${name}' does not exist.`);
    await this.dir.remove(path);
  }

  async claimEvents(now: number, claimedUntil: number, limit: number): Promise<OutboxEvent[]> {
    // Batches staged by a writer that crashed are settled first, so their events are not delayed until the next write.
    await this.dir.withLock('stacks', () => this.outbox.recoverStacks());
    for (const stackId of await this.outbox.stagedUpdateStacks()) {
      await this.dir.withLock(`updates-${safeSegment(stackId, 'stack id')}`, () => this.outbox.recoverUpdates(stackId));
    }
    return this.dir.withLock('hooks-outbox', async () => {
      const claimed: OutboxEvent[] = [];
      for (const file of await this.dir.list(this.outbox.readyFolder())) {
        if (claimed.length >= limit) break;
        const path = join(this.outbox.readyFolder(), file);
        const ready = await this.dir.readJson<ReadyEvent>(path);
        if (!ready || (ready.claimedUntil !== undefined && ready.claimedUntil >= now)) continue;
        await this.dir.writeJson(path, { ...ready, claimedUntil });
        claimed.push(ready.event);
      }
      return claimed;
    });
  }

  async completeEvent(eventId: string): Promise<void> {
    await this.dir.remove(this.outbox.readyPath(eventId));
  }

  async createDelivery(delivery: NewDelivery): Promise<{ delivery: DeliveryRecord; created: boolean }> {
    const path = this.deliveryPath(delivery);
    return this.dir.withLock(this.deliveryLock(delivery.org), async () => {
      const existing = await this.dir.readJson<DeliveryRecord>(path);
      if (existing) return { delivery: existing, created: false };
      const record: DeliveryRecord = {
        ...delivery,
        status: 'pending',
        attempts: [],
        nextAttemptAt: delivery.createdAt,
        revision: 1,
      };
      await this.dir.writeJson(this.duePath(delivery), dueEntry(delivery));
      await this.dir.writeJson(path, record);
      return { delivery: record, created: true };
    });
  }

  async getDelivery(ref: DeliveryRef): Promise<DeliveryRecord> {
    return this.dir.mustReadJson<DeliveryRecord>(this.deliveryPath(ref), `Delivery '${ref.id}'`);
  }

  async listDeliveries(scope: HookScope, name: string, limit: number): Promise<DeliveryRecord[]> {
    const folder = this.deliveryFolder(scope, name);
    const files = (await this.dir.list(folder)).reverse().slice(0, limit);
    const deliveries: DeliveryRecord[] = [];
    for (const file of files) {
      const record = await this.dir.readJson<DeliveryRecord>(join(folder, file));
      if (record) deliveries.push(record);
    }
    return deliveries;
  }

  async dueDeliveries(now: number, limit: number): Promise<DeliveryRecord[]> {
    const due: DeliveryRecord[] = [];
    for (const file of await this.dir.list(this.dir.path('hooks', 'due'))) {
      const entry = await this.dir.readJson<DueEntry>(this.dir.path('hooks', 'due', file));
      if (!entry) continue;
      const record = await this.dir.readJson<DeliveryRecord>(
        this.dir.path('hooks', 'deliveries', entry.org, entry.scope, entry.hook, `${entry.id}.json`),
      );
      if (!record || record.status !== 'pending') continue;
      if ((record.nextAttemptAt ?? 0) > now || (record.claimedUntil ?? -1) >= now) continue;
      due.push(record);
    }
    due.sort((a, b) => (a.nextAttemptAt ?? 0) - (b.nextAttemptAt ?? 0));
    return due.slice(0, limit);
  }

  async claimDelivery(
    ref: DeliveryRef,
    expectedRevision: number,
    now: number,
    claimedUntil: number,
  ): Promise<DeliveryRecord | undefined> {
    const path = this.deliveryPath(ref);
    return this.dir.withLock(this.deliveryLock(ref.org), async () => {
      const current = await this.dir.readJson<DeliveryRecord>(path);
      if (!current || current.revision !== expectedRevision || current.status !== 'pending') return undefined;
      if (current.claimedUntil !== undefined && current.claimedUntil >= now) return undefined;
      const next: DeliveryRecord = { ...current, claimedUntil, revision: current.revision + 1 };
      await this.dir.writeJson(path, next);
      return next;
    });
  }

  async recordAttempt(
    ref: DeliveryRef,
    expectedRevision: number,
    attempt: DeliveryAttempt,
    outcome: DeliveryOutcome,
  ): Promise<DeliveryRecord> {
    const path = this.deliveryPath(ref);
    return this.dir.withLock(this.deliveryLock(ref.org), async () => {
      const current = await this.dir.mustReadJson<DeliveryRecord>(path, `Delivery '${ref.id}'`);
      if (current.revision !== expectedRevision) {
        throw new ConflictError(`Delivery ${ref.id} was changed by another dispatcher.`, {
          expectedRevision,
          revision: current.revision,
        });
      }
      const next: DeliveryRecord = {
        ...current,
        status: outcome.status,
        attempts: [...current.attempts, attempt],
        revision: current.revision + 1,
      };
      delete next.claimedUntil;
      if (outcome.status === 'pending') next.nextAttemptAt = outcome.nextAttemptAt;
      else delete next.nextAttemptAt;
      await this.dir.writeJson(path, next);
      if (outcome.status !== 'pending') await this.dir.remove(this.duePath(ref));
      return next;
    });
  }

  async listDeadLetters(org: string, limit: number): Promise<DeliveryRecord[]> {
    const root = this.dir.path('hooks', 'deliveries', safeSegment(org, 'organization'));
    const dead: DeliveryRecord[] = [];
    for (const scope of await this.dir.list(root)) {
      for (const hook of await this.dir.list(join(root, scope))) {
        for (const file of await this.dir.list(join(root, scope, hook))) {
          const record = await this.dir.readJson<DeliveryRecord>(join(root, scope, hook, file));
          if (record?.status === 'dead') dead.push(record);
        }
      }
    }
    return dead.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)).slice(0, limit);
  }

  private async readHooks(folder: string): Promise<HookRecord[]> {
    const hooks: HookRecord[] = [];
    for (const file of await this.dir.list(folder)) {
      const hook = await this.dir.readJson<HookRecord>(join(folder, file));
      if (hook) hooks.push(hook);
    }
    return hooks;
  }

  private hookPath(scope: HookScope, name: string): string {
    return this.dir.path(
      'hooks',
      'defs',
      safeSegment(scope.org, 'organization'),
      scopeSegment(scope),
      `${safeSegment(name, 'hook name')}.json`,
    );
  }

  private deliveryFolder(scope: HookScope, hook: string): string {
    return this.dir.path(
      'hooks',
      'deliveries',
      safeSegment(scope.org, 'organization'),
      scopeSegment(scope),
      safeSegment(hook, 'hook name'),
    );
  }

  private deliveryPath(ref: DeliveryRef): string {
    return join(this.deliveryFolder(ref, ref.hook), `${safeSegment(ref.id, 'delivery id')}.json`);
  }

  private duePath(ref: DeliveryRef): string {
    const entry = dueEntry(ref);
    return this.dir.path('hooks', 'due', `${entry.org}+${entry.scope}+${entry.hook}+${entry.id}.json`);
  }

  private deliveryLock(org: string): string {
    return `hooks-deliveries-${safeSegment(org, 'organization')}`;
  }
}

function scopeSegment(scope: HookScope): string {
  return scope.stackId === undefined ? 'org' : `stack-${safeSegment(scope.stackId, 'stack id')}`;
}

function dueEntry(ref: DeliveryRef): DueEntry {
  return {
    org: safeSegment(ref.org, 'organization'),
    scope: scopeSegment(ref),
    hook: safeSegment(ref.hook, 'hook name'),
    id: safeSegment(ref.id, 'delivery id'),
  };
}
