/** The drift calls of `login --local` (loaded on first use: see lazy-sub-backend.ts). */
import type { Principal } from '../../shared/core/kernel/principal.js';
import type { LocalServices } from './local-services.js';
import type { DriftBackend } from './drift-backend.js';

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
