/**
 * Scheduled deployments of a stack on a service, called as the `pulumi` CLI's client calls them
 * (pkg/backend/httpstate/client: ListStackSchedules, GetStackSchedule, CreateStack…Schedule, UpdateStack…Schedule,
 * DeleteStackSchedule) plus pause and resume from Pulumi Cloud's REST reference; docs/deployments.md, "Schedules".
 */
import type { StackRef } from '../../shared/core/names.js';
import type { ScheduleBody, ScheduleView } from '../../shared/core/schedules/definitions.js';
import type { ScheduleKind } from '../../shared/ports/schedule-store.js';
import type { ApiClient } from '../api-client/api-client.js';
import { UserError } from '../output/errors.js';

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

const KIND_PATHS: Record<ScheduleKind, string> = { raw: '/schedules', drift: '/drift/schedules', ttl: '/ttl/schedules' };

const path = (ref: StackRef, rest: string) =>
  `/api/stacks/${encodeURIComponent(ref.org)}/${encodeURIComponent(ref.project)}/${encodeURIComponent(ref.stack)}/deployments${rest}`;
const one = (id: string) => `/schedules/${encodeURIComponent(id)}`;

/** The schedule routes of the service. */
export function httpSchedulesBackend(client: ApiClient): SchedulesBackend {
  return {
    async list(ref) {
      const answer = await client.request<{ schedules?: ScheduleView[] }>({ method: 'GET', path: path(ref, '/schedules'), operation: 'list stack schedules' });
      return answer?.schedules ?? [];
    },
    get(ref, id) {
      return client.request({ method: 'GET', path: path(ref, one(id)), operation: 'get stack schedule' });
    },
    create(ref, kind, body) {
      return client.request({ method: 'POST', path: path(ref, KIND_PATHS[kind]), body, operation: 'create stack schedule' });
    },
    update(ref, kind, id, body) {
      return client.request({ method: 'POST', path: path(ref, `${KIND_PATHS[kind]}/${encodeURIComponent(id)}`), body, operation: 'update stack schedule' });
    },
    setPaused(ref, id, paused) {
      return client.request({ method: 'POST', path: path(ref, `${one(id)}/${paused ? 'pause' : 'resume'}`), operation: `${paused ? 'pause' : 'resume'} stack schedule` });
    },
    async remove(ref, id) {
      await client.request({ method: 'DELETE', path: path(ref, one(id)), operation: 'remove stack schedule' });
    },
  };
}

/** The local backend has no scheduler and no runners: every call says so. */
export function localSchedulesBackend(): SchedulesBackend {
  const refuse = async (): Promise<never> => {
    throw new UserError(
      'the local backend does not support schedules',
      'Schedules run on a stackyard service (`stackyard serve --runners N`, then `stackyard login <url>`).',
    );
  };
  return { list: refuse, get: refuse, create: refuse, update: refuse, setPaused: refuse, remove: refuse };
}
