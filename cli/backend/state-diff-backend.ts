import type { ApiClient } from '../api-client/api-client.js';
import type { StackRef } from '../../shared/core/names.js';
import type { Principal } from '../../shared/core/kernel/principal.js';
import type { StateDiff } from '../../shared/core/state-diff/types.js';
import type { LocalServices } from './local-services.js';

/** `stack diff` on a backend: the same core use case on the service (over HTTP) and in process (`login --local`). */
export interface StateDiffBackend {
  diffVersions(ref: StackRef, versions: { from?: number; to?: number }, showSecrets: boolean): Promise<StateDiff>;
}

/** `GET …/diff?from=&to=&showSecrets=` on the service. */
export function httpStateDiffBackend(client: ApiClient): StateDiffBackend {
  return {
    diffVersions(ref, versions, showSecrets) {
      return client.request<StateDiff>({
        method: 'GET',
        path: `/api/stacks/${ref.org}/${ref.project}/${ref.stack}/diff`,
        query: { from: versions.from, to: versions.to, ...(showSecrets ? { showSecrets: true } : {}) },
        operation: 'diff stack versions',
      });
    },
  };
}

/** The local backend's in-process state diff service. */
export function localStateDiffBackend(services: Pick<LocalServices, 'stateDiff'>, principal: Principal): StateDiffBackend {
  return {
    async diffVersions(ref, versions, showSecrets) {
      return (await services.stateDiff()).diffVersions(principal, ref, versions, { showSecrets });
    },
  };
}
