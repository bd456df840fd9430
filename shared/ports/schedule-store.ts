/** Which of Pulumi Cloud's schedule routes made a schedule: `…/schedules` (raw), `…/drift/schedules`, `…/ttl/schedules`. */
export type ScheduleKind = 'raw' | 'drift' | 'ttl';

/** A stack's scheduled deployment (Pulumi Cloud's `ScheduledAction` of kind `deployment`). */
export interface ScheduleRecord {
  /** Random, unique across stacks. */
  id: string;
  stackId: string;
  org: string;
  kind: ScheduleKind;
  /** Exactly one of `cron` (five fields, UTC) and `once` (epoch ms). */
  cron?: string;
  once?: number;
  /** Pulumi's `CreateDeploymentRequest` queued each time it fires. */
  request: Record<string, unknown>;
  paused: boolean;
  /** When it fires next (epoch ms); absent once a one-time schedule has fired. */
  nextExecution?: number;
  /** The due time it last fired for (epoch ms). */
  lastExecuted?: number;
  created: number;
  modified: number;
  createdBy: string;
  /** +1 on every write; the condition of the next. */
  revision: number;
}

/**
 * Scheduled deployments (items of the Stackyard table in AWS, lock-protected files locally). Design:
 * docs/deployments.md, "Schedules".
 *
 * Guarantees:
 * - `create` is create-if-absent by (stack, id).
 * - `update` applies only at the revision the caller read; otherwise `ConflictError` and nothing changes. Firing a
 *   schedule is such an update (moving `nextExecution` on), so of any number of schedulers that read the same due
 *   schedule, exactly one fires it for that due time.
 * - `due` lists schedules not paused whose `nextExecution` is at or before `now`, earliest first, across stacks; a
 *   schedule leaves the list in the same write that moves its `nextExecution` past `now`, pauses or deletes it.
 * - `get` and `delete` of a missing schedule: `undefined`, and no error.
 */
export interface ScheduleStore {
  create(schedule: ScheduleRecord): Promise<void>;
  get(stackId: string, id: string): Promise<ScheduleRecord | undefined>;
  /** A stack's schedules, oldest first. */
  list(stackId: string): Promise<ScheduleRecord[]>;
  update(schedule: ScheduleRecord, expectedRevision: number): Promise<ScheduleRecord>;
  delete(stackId: string, id: string): Promise<void>;
  due(now: number, limit: number): Promise<ScheduleRecord[]>;
}
