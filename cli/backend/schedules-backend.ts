/**
 * Scheduled deployments of a stack on a service, called as the `pulumi` CLI's client calls them
 * (pkg/backend/httpstate/client: ListStackSchedules, GetStackSchedule, CreateStack…Schedule, UpdateStack…Schedule,
 * DeleteStackSchedule) plus pause and resume from Pulumi Cloud's REST reference; docs/deployments.md, "Schedules".
 */
import type { StackRef } from '../../shared/core/names.js';
import type { ScheduleBody, ScheduleView } from '../../shared/core/schedules/definitions.js';
import type { ScheduleKind } from '../../shared/ports/schedule-store.js';

/** What `stackyard stack schedule …` asks of a backend. */
export interface SchedulesBackend {
  list(ref: StackRef): Promise<ScheduleView[]>;
  get(ref: StackRef, id: string): Promise<ScheduleView>;
  /** A new schedule of `kind` (Pulumi's `CreateScheduled…Request` body for that kind). */
  create(ref: StackRef, kind: ScheduleKind, body: ScheduleBody): Promise<ScheduleView>;
  /** Replaces what the schedule `id` of `kind` runs and when (the full body, as Pulumi's client sends it). */
  update(ref: StackRef, kind: ScheduleKind, id: string, body: ScheduleBody): Promise<ScheduleView>;
  /** Pauses (`true`) or resumes the schedule. */
  setPaused(ref: StackRef, id: string, paused: boolean): Promise<ScheduleView>;
  remove(ref: StackRef, id: string): Promise<void>;
}
