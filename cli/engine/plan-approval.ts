/**
 * `up --plan` with a plan on the service: the plan must be approved before anything runs. A plan that was rejected,
 * made void or already applied is refused at once; a pending one is refused too, unless `--wait-for-approval`, which
 * asks the service again every few seconds until the plan is approved, rejected or made void, or the time is up.
 * The service checks again when the update starts (docs/plans.md); this spares a preview that would be refused.
 */
import { OperationUsageError, type ServicePlans, type ServicePlanState } from './operation-types.js';

/** How often `--wait-for-approval` asks the service. */
const POLL_MS = 2_000;

const AGAIN = 'run preview --save-plan again';

/** A duration as Go prints one (`1h0m0s`, `30m0s`, `45s`), as the flag takes it. */
export function goDuration(ms: number): string {
  const total = Math.round(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${h}h${m}m${s}s`;
  if (m > 0) return `${m}m${s}s`;
  return `${s}s`;
}

const tally = (state: ServicePlanState) => `${state.approvals.length} of ${state.requiredApprovals} approvals`;

/** Why a plan that is not pending cannot be applied, or undefined when it is approved. */
function finalRefusal(id: string, state: ServicePlanState): string | undefined {
  switch (state.status) {
    case 'approved':
      return undefined;
    case 'rejected': {
      const by = state.rejection ? ` by ${state.rejection.user}${state.rejection.comment ? ` (${state.rejection.comment})` : ''}` : '';
      return `plan ${id} was rejected${by}: ${AGAIN}`;
    }
    case 'void':
      // the service's reason may already say what to do
      if (state.voidReason?.includes(AGAIN)) return `plan ${id} is void: ${state.voidReason}`;
      return `plan ${id} is void${state.voidReason ? ` (${state.voidReason})` : ''}: ${AGAIN}`;
    case 'applied':
      return `plan ${id} was already applied; a plan starts one update: ${AGAIN}`;
    default:
      return `plan ${id} is ${state.status}: ${AGAIN}`;
  }
}

/** Options of `approvedPlan`. */
export interface ApprovalWait {
  /** `--wait-for-approval`: wait at most this long for a pending plan. */
  wait?: { timeoutMs: number };
  note: (text: string) => void;
  signal?: AbortSignal;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

function sleepFor(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** The plan once the service has approved it; throws what to do when it is not (and will not be in time). */
export async function approvedPlan(plans: ServicePlans, id: string, options: ApprovalWait): Promise<ServicePlanState & { plan: unknown }> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? sleepFor;
  const deadline = options.wait ? now() + options.wait.timeoutMs : 0;
  let announced = false;
  for (;;) {
    const state = await plans.get(id);
    if (state.status !== 'pending') {
      const refusal = finalRefusal(id, state);
      if (refusal) throw new OperationUsageError(refusal);
      return state;
    }
    if (!options.wait) {
      throw new OperationUsageError(
        `plan ${id} is not approved yet (${tally(state)}): ask others to run \`stackyard plan approve ${id}\`, or pass --wait-for-approval to wait for them`,
      );
    }
    if (options.signal?.aborted) throw new OperationUsageError(`the operation was interrupted while waiting for plan ${id} to be approved`);
    if (now() >= deadline) throw new OperationUsageError(`plan ${id} was not approved within ${goDuration(options.wait.timeoutMs)} (${tally(state)})`);
    if (!announced) {
      options.note(`Waiting up to ${goDuration(options.wait.timeoutMs)} for plan ${id} to be approved (${tally(state)} so far; \`stackyard plan approve ${id}\`)\n`);
      announced = true;
    }
    await sleep(Math.min(POLL_MS, Math.max(0, deadline - now())), options.signal);
  }
}
