import { InvalidInputError } from '../errors.js';
import type { StackRef } from '../names.js';
import { loadStack } from '../kernel/authorization.js';
import type { ServiceDeps } from '../kernel/deps.js';
import type { Principal } from '../kernel/principal.js';
import { driftRunView, type DriftRunView, type DriftStatusView } from './views.js';

/** A page of a stack's drift runs, as Pulumi's `ListDriftRunsResponse`. */
export interface DriftRunsPage {
  driftRuns: DriftRunView[];
  itemsPerPage: number;
  total: number;
}

/** A stack's drift runs and drift status (docs/deployments.md, "Drift"). */
export interface DriftService {
  /** Page `page` (1-based) of `pageSize` runs, newest first. */
  listRuns(principal: Principal, ref: StackRef, page: number, pageSize: number): Promise<DriftRunsPage>;
  status(principal: Principal, ref: StackRef): Promise<DriftStatusView>;
}

/** The largest page a caller may ask for. */
export const MAX_DRIFT_PAGE = 100;
const LIVE_RUN_STATUSES: ReadonlySet<string> = new Set(['not-started', 'accepted', 'running']);
/** Runs looked at for a `detect-drift` still under way: runs of a stack are serialized, so a live one is recent. */
const RECENT_RUNS = 20;

export function createDriftService(deps: ServiceDeps): DriftService {
  return {
    async listRuns(principal, ref, page, pageSize) {
      if (!Number.isSafeInteger(page) || page < 1) throw new InvalidInputError(`page must be 1 or more, got ${page}.`);
      if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > MAX_DRIFT_PAGE) {
        throw new InvalidInputError(`pageSize must be from 1 to ${MAX_DRIFT_PAGE}, got ${pageSize}.`);
      }
      const stack = await loadStack(deps, principal, ref, 'read-deployments');
      const { runs, total } = await deps.storage.drift.listRuns(stack.id, { limit: pageSize, skip: (page - 1) * pageSize });
      return { driftRuns: runs.map(driftRunView), itemsPerPage: pageSize, total };
    },

    async status(principal, ref) {
      const stack = await loadStack(deps, principal, ref, 'read-deployments');
      const [latest, deployments] = await Promise.all([
        deps.storage.drift.listRuns(stack.id, { limit: 1, skip: 0 }),
        deps.storage.deployments.listRuns(stack.id, RECENT_RUNS),
      ]);
      const run = latest.runs[0];
      return {
        driftDetected: run?.driftDetected ?? false,
        latestDriftRun: run?.id ?? '',
        runInProgress: deployments.some((d) => d.operation === 'detect-drift' && LIVE_RUN_STATUSES.has(d.status)),
      };
    },
  };
}
