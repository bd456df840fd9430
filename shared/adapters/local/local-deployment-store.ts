import { createHash } from 'node:crypto';
import { ConflictError } from '../../core/errors.js';
import type {
  DeploymentLogLine,
  DeploymentRun,
  DeploymentSettingsRecord,
  DeploymentStore,
} from '../../ports/deployment-store.js';
import { isClaimedRun } from '../../ports/deployment-store.js';
import { safeSegment, type DataDir } from './files.js';

/** Where a queued run lives, indexed under `deployments/queue/` so a runner need not walk every stack. */
interface QueueEntry {
  stackId: string;
  version: number;
}

const LOCK = 'deployments';

function pad(n: number): string {
  return String(n).padStart(10, '0');
}

/**
 * `deployments/<stackId>/settings.json`, runs at `deployments/<stackId>/runs/<version>.json`, the queue as one file
 * per queued run in `deployments/queue/<created>-<id>.json`, claimed runs in `deployments/live/<id>.json`, and logs at `deployments/logs/<runId>.json`. Every
 * read-modify-write holds the `deployments` lock, so claims, cancels and appends from several processes are serial.
 */
export class LocalDeploymentStore implements DeploymentStore {
  constructor(private readonly dir: DataDir) {}

  async getSettings(stackId: string): Promise<DeploymentSettingsRecord | undefined> {
    return this.dir.readJson<DeploymentSettingsRecord>(this.settingsPath(stackId));
  }

  async putSettings(record: DeploymentSettingsRecord, expectedVersion: number | undefined): Promise<void> {
    await this.dir.withLock(LOCK, async () => {
      const current = await this.getSettings(record.stackId);
      if (current?.version !== expectedVersion) throw settingsChanged();
      await this.dir.writeJson(this.settingsPath(record.stackId), record);
    });
  }

  async deleteSettings(stackId: string): Promise<void> {
    await this.dir.withLock(LOCK, () => this.dir.remove(this.settingsPath(stackId)));
  }

  async createRun(run: DeploymentRun): Promise<void> {
    await this.dir.withLock(LOCK, async () => {
      await this.dir.createJson(this.runPath(run.stackId, run.version), run, `Run ${run.version} of the stack`);
      if (run.status === 'not-started') await this.dir.writeJson(this.queuePath(run), { stackId: run.stackId, version: run.version });
    });
  }

  async getRun(stackId: string, id: string): Promise<DeploymentRun | undefined> {
    return (await this.allRuns(stackId)).find((run) => run.id === id);
  }

  async listRuns(stackId: string, limit: number): Promise<DeploymentRun[]> {
    return (await this.allRuns(stackId)).reverse().slice(0, limit);
  }

  async updateRun(run: DeploymentRun, expectedRevision: number): Promise<DeploymentRun> {
    return this.dir.withLock(LOCK, () => this.writeRun(run, expectedRevision));
  }

  async claimNext(runner: string, now: number, claimedUntil: number): Promise<DeploymentRun | undefined> {
    return this.dir.withLock(LOCK, async () => {
      const busy = await this.busyStacks(now);
      for (const name of await this.dir.list(this.dir.path('deployments', 'queue'))) {
        const entry = await this.dir.readJson<QueueEntry>(this.dir.path('deployments', 'queue', name));
        if (entry && busy.has(entry.stackId)) continue;
        const run = entry && (await this.dir.readJson<DeploymentRun>(this.runPath(entry.stackId, entry.version)));
        if (!run || run.status !== 'not-started') {
          await this.dir.remove(this.dir.path('deployments', 'queue', name));
          continue;
        }
        const claimed = { ...run, status: 'accepted' as const, claimedBy: runner, claimedUntil, modified: now, revision: run.revision + 1 };
        return this.writeRun(claimed, run.revision);
      }
      return undefined;
    });
  }

  async claimLost(runner: string, now: number, claimedUntil: number): Promise<DeploymentRun | undefined> {
    return this.dir.withLock(LOCK, async () => {
      for (const name of await this.dir.list(this.dir.path('deployments', 'live'))) {
        const entry = await this.dir.readJson<QueueEntry>(this.dir.path('deployments', 'live', name));
        const run = entry && (await this.dir.readJson<DeploymentRun>(this.runPath(entry.stackId, entry.version)));
        if (!run || !isClaimedRun(run)) {
          await this.dir.remove(this.dir.path('deployments', 'live', name));
          continue;
        }
        if ((run.claimedUntil ?? 0) >= now) continue;
        return this.writeRun({ ...run, claimedBy: runner, claimedUntil, modified: now, revision: run.revision + 1 }, run.revision);
      }
      return undefined;
    });
  }

  async recordDelivery(stackId: string, deliveryId: string, now: number, expiresAt: number): Promise<boolean> {
    const name = `${createHash('sha256').update(deliveryId).digest('hex')}.json`;
    const path = this.dir.path('deployments', safeSegment(stackId, 'stack id'), 'deliveries', name);
    return this.dir.withLock(LOCK, async () => {
      const recorded = await this.dir.readJson<{ expiresAt: number }>(path);
      if (recorded && recorded.expiresAt >= now) return false;
      await this.dir.writeJson(path, { expiresAt });
      return true;
    });
  }

  async appendLog(runId: string, lines: readonly DeploymentLogLine[]): Promise<void> {
    if (lines.length === 0) return;
    await this.dir.withLock(LOCK, async () => {
      const path = this.logPath(runId);
      const current = (await this.dir.readJson<DeploymentLogLine[]>(path)) ?? [];
      await this.dir.writeJson(path, [...current, ...lines]);
    });
  }

  async readLog(runId: string, offset: number, count: number): Promise<DeploymentLogLine[]> {
    const lines = (await this.dir.readJson<DeploymentLogLine[]>(this.logPath(runId))) ?? [];
    return lines.slice(offset, offset + count);
  }

  /** Stacks with a claimed run whose claim has not passed. Call holding the lock. */
  private async busyStacks(now: number): Promise<Set<string>> {
    const busy = new Set<string>();
    for (const name of await this.dir.list(this.dir.path('deployments', 'live'))) {
      const entry = await this.dir.readJson<QueueEntry>(this.dir.path('deployments', 'live', name));
      const run = entry && (await this.dir.readJson<DeploymentRun>(this.runPath(entry.stackId, entry.version)));
      if (run && isClaimedRun(run) && (run.claimedUntil ?? 0) >= now) busy.add(run.stackId);
    }
    return busy;
  }

  /** Call holding the lock. */
  private async writeRun(run: DeploymentRun, expectedRevision: number): Promise<DeploymentRun> {
    const current = await this.dir.readJson<DeploymentRun>(this.runPath(run.stackId, run.version));
    if (!current || current.id !== run.id || current.revision !== expectedRevision) {
      throw new ConflictError('The run changed since it was read: read it again and retry.');
    }
    await this.dir.writeJson(this.runPath(run.stackId, run.version), run);
    if (run.status !== 'not-started') await this.dir.remove(this.queuePath(run));
    if (isClaimedRun(run)) await this.dir.writeJson(this.livePath(run), { stackId: run.stackId, version: run.version });
    else await this.dir.remove(this.livePath(run));
    return run;
  }

  private async allRuns(stackId: string): Promise<DeploymentRun[]> {
    const folder = this.dir.path('deployments', safeSegment(stackId, 'stack id'), 'runs');
    const runs: DeploymentRun[] = [];
    for (const name of await this.dir.list(folder)) {
      const run = await this.dir.readJson<DeploymentRun>(this.dir.path('deployments', safeSegment(stackId, 'stack id'), 'runs', name));
      if (run) runs.push(run);
    }
    return runs;
  }

  private settingsPath(stackId: string): string {
    return this.dir.path('deployments', safeSegment(stackId, 'stack id'), 'settings.json');
  }

  private runPath(stackId: string, version: number): string {
    return this.dir.path('deployments', safeSegment(stackId, 'stack id'), 'runs', `${pad(version)}.json`);
  }

  private queuePath(run: Pick<DeploymentRun, 'created' | 'id'>): string {
    return this.dir.path('deployments', 'queue', `${String(run.created).padStart(15, '0')}-${safeSegment(run.id, 'run id')}.json`);
  }

  private livePath(run: Pick<DeploymentRun, 'id'>): string {
    return this.dir.path('deployments', 'live', `${safeSegment(run.id, 'run id')}.json`);
  }

  private logPath(runId: string): string {
    return this.dir.path('deployments', 'logs', `${safeSegment(runId, 'run id')}.json`);
  }
}

function settingsChanged(): ConflictError {
  return new ConflictError('The deployment settings changed since they were read: read them again and retry.');
}
