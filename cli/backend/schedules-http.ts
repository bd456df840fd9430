/** The schedules routes of a service, over HTTP (loaded on first use: see lazy-sub-backend.ts). */
import type { StackRef } from '../../shared/core/names.js';
import type { ScheduleView } from '../../shared/core/schedules/definitions.js';
import type { ScheduleKind } from '../../shared/ports/schedule-store.js';
import type { ApiClient } from '../api-client/api-client.js';
import type { SchedulesBackend } from './schedules-backend.js';

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
