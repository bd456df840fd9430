import { randomUUID } from 'node:crypto';
import { ConflictError, InvalidInputError, NotFoundError } from '../errors.js';
import { formatStackRef, type StackRef } from '../names.js';
import type { ScheduleKind, ScheduleRecord } from '../../ports/schedule-store.js';
import type { StackRecord } from '../../ports/stack-store.js';
import { audited } from '../audit/audit.js';
import { gitSource } from '../deployments/settings.js';
import { loadStack } from '../kernel/authorization.js';
import type { ServiceDeps } from '../kernel/deps.js';
import type { Principal } from '../kernel/principal.js';
import { nextExecutionOf, scheduleDefinition, scheduleView, type ScheduleBody, type ScheduleView } from './definitions.js';
import { removeTrigger, syncTrigger } from './triggers.js';

/** Scheduled deployments of a stack, in Pulumi Cloud's shapes (docs/deployments.md, "Schedules"). */
export interface ScheduleService {
  list(principal: Principal, ref: StackRef): Promise<ScheduleView[]>;
  get(principal: Principal, ref: StackRef, id: string): Promise<ScheduleView>;
  /** A new schedule of `kind`; refused while the stack has no deployment settings naming a source. */
  create(principal: Principal, ref: StackRef, kind: ScheduleKind, body: ScheduleBody): Promise<ScheduleView>;
  /** Replaces when and what a schedule of `kind` runs (the full body, as Pulumi's client sends it). */
  update(principal: Principal, ref: StackRef, kind: ScheduleKind, id: string, body: ScheduleBody): Promise<ScheduleView>;
  /** Pauses (`true`) or resumes a schedule; a resumed cron schedule fires next at its next time from now. */
  setPaused(principal: Principal, ref: StackRef, id: string, paused: boolean): Promise<ScheduleView>;
  remove(principal: Principal, ref: StackRef, id: string): Promise<void>;
}

/** Schedules per stack: enough for any team's crons, and a bound on what the scheduler reads per stack. */
const MAX_SCHEDULES_PER_STACK = 50;
const SCHEDULE_ID = /^[0-9a-f-]{36}$/;
const KIND_ROUTES: Record<ScheduleKind, string> = { raw: 'deployments/schedules', drift: 'deployments/drift/schedules', ttl: 'deployments/ttl/schedules' };

export function createScheduleService(deps: ServiceDeps): ScheduleService {
  const store = () => deps.storage.schedules;

  async function find(stack: StackRecord, id: string): Promise<ScheduleRecord> {
    const schedule = SCHEDULE_ID.test(id) ? await store().get(stack.id, id) : undefined;
    if (!schedule) throw new NotFoundError(`Schedule '${id.slice(0, 64)}' not found: list the stack's schedules with GET …/deployments/schedules.`);
    return schedule;
  }

  async function requireSettings(stack: StackRecord): Promise<void> {
    const settings = (await deps.storage.deployments.getSettings(stack.id))?.settings;
    if (!settings || !gitSource(settings)) {
      throw new InvalidInputError(
        `The stack ${formatStackRef(stack)} has no deployment settings to run a schedule with: set sourceContext.git.repoUrl ` +
          `with 'stackyard deployment settings edit --git-url <repository> --branch <branch>' (or POST …/deployments/settings) first.`,
      );
    }
  }

  function firstExecution(definition: { cron?: string; once?: number }): number {
    const next = nextExecutionOf(definition, deps.now());
    if (next === undefined) {
      throw new InvalidInputError(definition.cron !== undefined ? `The cron expression '${definition.cron}' never fires.` : 'The time to run at must be in the future.');
    }
    return next;
  }

  /**
   * Writes `change(current)` at the revision read, reading again when a scheduler fired it in between, then puts the
   * trigger. The record is written first: if the trigger then fails, the caller gets the error and sends the same
   * request again, and meanwhile the old trigger fires nothing the record does not call for (a paused or not yet due
   * record is ignored by the fire function).
   */
  async function change(principal: Principal, stack: StackRecord, id: string, event: 'deployment.schedule-changed', what: string, fn: (current: ScheduleRecord) => ScheduleRecord) {
    const target = formatStackRef(stack);
    for (;;) {
      const current = await find(stack, id);
      const next = { ...fn(current), modified: deps.now(), revision: current.revision + 1 };
      try {
        return await audited(deps, principal, { org: stack.org, event, target, description: `${what} schedule ${id} of ${target}` }, async () => {
          const written = await store().update(next, current.revision);
          await syncTrigger(deps, written);
          return written;
        });
      } catch (error) {
        if (!(error instanceof ConflictError)) throw error;
      }
    }
  }

  return {
    async list(principal, ref) {
      const stack = await loadStack(deps, principal, ref, 'read-deployments');
      return (await store().list(stack.id)).map(scheduleView);
    },

    async get(principal, ref, id) {
      const stack = await loadStack(deps, principal, ref, 'read-deployments');
      return scheduleView(await find(stack, id));
    },

    async create(principal, ref, kind, body) {
      const definition = scheduleDefinition(kind, body);
      const stack = await loadStack(deps, principal, ref, 'manage-deployments');
      await requireSettings(stack);
      if ((await store().list(stack.id)).length >= MAX_SCHEDULES_PER_STACK) {
        throw new InvalidInputError(`The stack ${formatStackRef(stack)} already has ${MAX_SCHEDULES_PER_STACK} schedules: remove one first.`);
      }
      const now = deps.now();
      const schedule: ScheduleRecord = {
        id: randomUUID(),
        stackId: stack.id,
        org: stack.org,
        kind,
        ...definition,
        paused: false,
        nextExecution: firstExecution(definition),
        created: now,
        modified: now,
        createdBy: principal.login,
        revision: 1,
      };
      const target = formatStackRef(stack);
      const spec = { org: stack.org, event: 'deployment.schedule-created', target, description: `scheduled ${String(definition.request.operation)} of ${target} (${schedule.id})` } as const;
      await audited(deps, principal, spec, async () => {
        await store().create(schedule);
        // A record without its trigger would never fire on AWS: undone, and the caller is told to try again.
        await syncTrigger(deps, schedule).catch(async (error: unknown) => {
          await store().delete(stack.id, schedule.id);
          throw error;
        });
      });
      return scheduleView(schedule);
    },

    async update(principal, ref, kind, id, body) {
      const definition = scheduleDefinition(kind, body);
      const stack = await loadStack(deps, principal, ref, 'manage-deployments');
      const updated = await change(principal, stack, id, 'deployment.schedule-changed', 'changed', (current) => {
        if (current.kind !== kind) throw new InvalidInputError(`Schedule ${id} is a ${current.kind} schedule: change it through …/${KIND_ROUTES[current.kind]}/${id}.`);
        const { cron: _cron, once: _once, ...rest } = current;
        return { ...rest, ...definition, nextExecution: current.paused ? undefined : firstExecution(definition) };
      });
      return scheduleView(updated);
    },

    async setPaused(principal, ref, id, paused) {
      const stack = await loadStack(deps, principal, ref, 'manage-deployments');
      const updated = await change(principal, stack, id, 'deployment.schedule-changed', paused ? 'paused' : 'resumed', (current) => {
        if (paused || !current.paused) return { ...current, paused };
        const next = nextExecutionOf(current, deps.now());
        // A one-time schedule whose time passed while paused is not fired late (a TTL would destroy the stack at once).
        if (next === undefined) throw new InvalidInputError(`Schedule ${id} was due while paused: give it a new time before resuming it.`);
        return { ...current, paused, nextExecution: next };
      });
      return scheduleView(updated);
    },

    async remove(principal, ref, id) {
      const stack = await loadStack(deps, principal, ref, 'manage-deployments');
      await find(stack, id);
      const target = formatStackRef(stack);
      await audited(deps, principal, { org: stack.org, event: 'deployment.schedule-deleted', target, description: `removed schedule ${id} of ${target}` }, async () => {
        await store().delete(stack.id, id);
        // The record is gone, so its trigger fires nothing; one left by a failed call is removed by the fire function
        // the next time it wakes it (docs/deployments.md, "Schedules on AWS").
        await removeTrigger(deps, id).catch(() => undefined);
      });
    },
  };
}
