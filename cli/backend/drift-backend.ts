/**
 * A stack's drift runs and drift status, as the `pulumi` CLI's client reads them (ListDriftRuns, GetDriftStatus);
 * docs/deployments.md, "Drift". On the local backend they are the drift runs of its own `refresh --preview-only`s.
 */
import type { Principal } from '../../shared/core/kernel/principal.js';
import type { StackRef } from '../../shared/core/names.js';
import type { DriftRunsPage } from '../../shared/core/drift/drift-service.js';
import type { DriftStatusView } from '../../shared/core/drift/views.js';
import type { ApiClient } from '../api-client/api-client.js';
import type { LocalServices } from './local-services.js';

/** What `stackyard stack drift …` asks of a backend. */
export interface DriftBackend {
  /** Page `page` (from 1) of `pageSize` drift runs, newest first, with the total. */
  listRuns(ref: StackRef, page: number, pageSize: number): Promise<DriftRunsPage>;
  status(ref: StackRef): Promise<DriftStatusView>;
}

const path = (ref: StackRef, rest: string) =>
  `/api/stacks/${encodeURIComponent(ref.org)}/${encodeURIComponent(ref.project)}/${encodeURIComponent(ref.stack)}/drift${rest}`;

/** The drift routes of the service. */
export function httpDriftBackend(client: ApiClient): DriftBackend {
  return {
    listRuns(ref, page, pageSize) {
      return client.request({ method: 'GET', path: path(ref, '/runs'), query: { page, pageSize }, operation: 'list drift runs' });
    },
    status(ref) {
      return client.request({ method: 'GET', path: path(ref, '/status'), operation: 'get drift status' });
    },
  };
}

/** The local backend's in-process drift service. */
export function localDriftBackend(services: Pick<LocalServices, 'drift'>, principal: Principal): DriftBackend {
  return {
    async listRuns(ref, page, pageSize) {
      return (await services.drift()).listRuns(principal, ref, page, pageSize);
    },
    async status(ref) {
      return (await services.drift()).status(principal, ref);
    },
  };
}
