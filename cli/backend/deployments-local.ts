/** The deployments calls of `login --local` (loaded on first use: see lazy-sub-backend.ts). */
import { UserError } from '../output/errors.js';
import type { DeploymentsBackend } from './deployments-backend.js';

/** The local backend has no runners: every call says so. */
export function localDeploymentsBackend(): DeploymentsBackend {
  const refuse = async (): Promise<never> => {
    throw new UserError(
      'the local backend does not support deployments',
      'Deployments run on a stackyard service (`stackyard serve --runners N`, then `stackyard login <url>`).',
    );
  };
  return { getSettings: refuse, patchSettings: refuse, deleteSettings: refuse, run: refuse, list: refuse, get: refuse, cancel: refuse, logs: refuse, uploadSource: refuse };
}
