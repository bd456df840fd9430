/** The drift routes of a service, over HTTP (loaded on first use: see lazy-sub-backend.ts). */
import type { StackRef } from '../../shared/core/names.js';
import type { ApiClient } from '../api-client/api-client.js';
import type { DriftBackend } from './drift-backend.js';

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
