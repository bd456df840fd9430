import { ConflictError } from '../../core/errors.js';
import type { ScheduleRecord, ScheduleStore } from '../../ports/schedule-store.js';
import { safeSegment, type DataDir } from './files.js';

const LOCK = 'schedules';

/**
 * `schedules/<stackId>/<id>.json`; every write holds the `schedules` lock, so firings from several processes are
 * serial and each sees the revision the last one wrote. `due` reads every schedule: a data folder holds few.
 */
export class LocalScheduleStore implements ScheduleStore {
  constructor(private readonly dir: DataDir) {}

  async create(schedule: ScheduleRecord): Promise<void> {
    await this.dir.withLock(LOCK, () => this.dir.createJson(this.path(schedule.stackId, schedule.id), schedule, 'The schedule'));
  }

  async get(stackId: string, id: string): Promise<ScheduleRecord | undefined> {
    return this.dir.readJson<ScheduleRecord>(this.path(stackId, id));
  }

  async list(stackId: string): Promise<ScheduleRecord[]> {
    const folder = this.dir.path('schedules', safeSegment(stackId, 'stack id'));
    const schedules: ScheduleRecord[] = [];
    for (const name of await this.dir.list(folder)) {
      const schedule = await this.dir.readJson<ScheduleRecord>(this.dir.path('schedules', safeSegment(stackId, 'stack id'), name));
      if (schedule) schedules.push(schedule);
    }
    return schedules.sort((a, b) => a.created - b.created || a.id.localeCompare(b.id));
  }

  async update(schedule: ScheduleRecord, expectedRevision: number): Promise<ScheduleRecord> {
    return this.dir.withLock(LOCK, async () => {
      const current = await this.get(schedule.stackId, schedule.id);
      if (!current || current.revision !== expectedRevision) throw new ConflictError('The schedule changed since it was read: read it again and retry.');
      await this.dir.writeJson(this.path(schedule.stackId, schedule.id), schedule);
      return schedule;
    });
  }

  async delete(stackId: string, id: string): Promise<void> {
    await this.dir.withLock(LOCK, () => this.dir.remove(this.path(stackId, id)));
  }

  async due(now: number, limit: number): Promise<ScheduleRecord[]> {
    const due: ScheduleRecord[] = [];
    for (const stack of await this.dir.list(this.dir.path('schedules'))) {
      for (const schedule of await this.list(stack)) {
        if (!schedule.paused && schedule.nextExecution !== undefined && schedule.nextExecution <= now) due.push(schedule);
      }
    }
    return due.sort((a, b) => a.nextExecution! - b.nextExecution!).slice(0, limit);
  }

  private path(stackId: string, id: string): string {
    return this.dir.path('schedules', safeSegment(stackId, 'stack id'), `${safeSegment(id, 'schedule id')}.json`);
  }
}
