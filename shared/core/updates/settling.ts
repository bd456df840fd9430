/**
 * Settling an update: `complete` with its token, `cancel` by a user. A non-dry-run update is settled by
 * `settle` (update-records.ts), ordered so a crash at any point is repaired by repeating the call; a dry run only
 * has its record ended. The lease goes last.
 */
import { ForbiddenError, InvalidInputError, PolicyBypassedError } from '../errors.js';
import { formatStackRef, type StackRef } from '../names.js';
import { updateEvent } from '../hooks/payloads.js';
import { audited } from '../audit/audit.js';
import { loadStack } from '../kernel/authorization.js';
import type { ServiceDeps } from '../kernel/deps.js';
import type { Principal, RequestInfo } from '../kernel/principal.js';
import type { UpdateRecord } from '../../ports/update-store.js';
import { isDriftDetection, recordDriftRun } from '../drift/drift-recording.js';
import { recordPolicyResults } from '../policy/policy-results.js';
import { judgeRequiredPacks, type PolicyBypass } from '../policy/index.js';
import { recordedEvents } from './recorded-changes.js';
import { DEPLOYMENT_ID_KEY } from './run-updates.js';
import { changeUpdate, isTerminal, readSummary, settle, updateOf } from './update-records.js';
import { leaseTokenId, sameHash, sha256Hex, tokenRef } from './update-token.js';

const COMPLETION_STATUSES: ReadonlySet<string> = new Set(['succeeded', 'failed', 'cancelled']);

/** `UpdateService.complete`: idempotent; a retry with the token that completed the update is answered as the first. */
export async function completeUpdate(
  deps: ServiceDeps,
  ref: StackRef,
  updateId: string,
  token: string,
  status: 'succeeded' | 'failed' | 'cancelled',
  request?: RequestInfo,
): Promise<void> {
  const { storage } = deps;
  if (!COMPLETION_STATUSES.has(status)) {
    throw new InvalidInputError(`Unknown completion status '${String(status)}': expected succeeded or failed.`);
  }
  const check = tokenRef(ref, updateId, token);
  const tokenHash = sha256Hex(token);
  try {
    await storage.leases.validate(check);
  } catch (error) {
    if (!(error instanceof ForbiddenError)) throw error;
    // The token dies with the first complete; a retry with that same token is answered as the first was.
    const update = await storage.updates.get(check.stackId, updateId).catch(() => undefined);
    if (!update?.completedTokenHash || !sameHash(update.completedTokenHash, tokenHash)) throw error;
    if (!update.dryRun) {
      await settle(deps, check.stackId, updateId, status);
      await recordPolicyResults(deps, check.stackId, updateId);
    }
    if (update.endReason === 'policy-bypassed') throw bypassedError(updateId, update.endMessage ?? 'a required policy pack did not run');
    return;
  }
  const update = await storage.updates.get(check.stackId, updateId);
  let bypass: PolicyBypass | undefined;
  if (update.dryRun) {
    const stack = { ...check.stack, id: check.stackId };
    // A preview of a refresh is a drift run: recorded before the update ends, so a retry finds it recorded.
    const drift = isDriftDetection(update) && !isTerminal(update) ? await recordDrift(deps, stack, update, status) : [];
    await changeUpdate(
      deps,
      check.stackId,
      updateId,
      (u) => (isTerminal(u) ? undefined : { status, endedAt: deps.now(), completedTokenHash: tokenHash }),
      (ended) => [updateEvent('ended', stack, ended, deps.now(), deps.options.serviceUrl), ...drift],
    );
  } else {
    // Done with the update token: the entry names the update's requester and the lease token's public id.
    const name = formatStackRef(check.stack);
    const actor = { login: update.requestedBy, tokenId: leaseTokenId(tokenHash), ...(request ? { request } : {}) };
    // One read of the update's events serves both the required-pack check and the policy results.
    let events: Promise<unknown[]> | undefined;
    const readEvents = () => (events ??= recordedEvents(deps, check.stackId, updateId).then((read) => read ?? []));
    bypass = status === 'succeeded' && !isTerminal(update) ? await policyBypass(update, readEvents) : undefined;
    const ended = bypass ? 'failed' : status;
    const spec = { org: ref.org, event: 'update.completed', target: name, description: `${update.kind} ${updateId} of ${name} ${ended}` } as const;
    const options = { completedTokenHash: tokenHash, ...(bypass ? { policyBypass: bypass.message } : {}) };
    const settleIt = () => settle(deps, check.stackId, updateId, ended, options);
    const bypassed = bypass && ({ org: ref.org, event: 'policy.bypassed', target: name, description: `${update.kind} ${updateId} of ${name}: ${bypass.message}` } as const);
    await audited(deps, actor, spec, () => (bypassed ? audited(deps, actor, bypassed, settleIt) : settleIt()));
    await recordPolicyResults(deps, check.stackId, updateId, readEvents);
  }
  await storage.leases.release(check).catch((error: unknown) => {
    // Expired between the check and now: the completion is recorded all the same.
    if (!(error instanceof ForbiddenError)) throw error;
  });
  // Only once the update is recorded (failed) and the stack free: the client learns why its `succeeded` was refused.
  if (bypass) throw bypassedError(updateId, bypass.message);
}

function bypassedError(updateId: string, what: string): PolicyBypassedError {
  return new PolicyBypassedError(
    `The service recorded update ${updateId} as failed: ${what}. Update with a client that runs the policy packs the service requires (stackyard or pulumi).`,
  );
}

/**
 * The required packs a non-dry-run `update` completing as succeeded did not run, or ran past a mandatory violation
 * (policy/enforcement-check.ts). Other kinds are not checked: `stackyard` runs required packs on `up` and `preview`
 * only, and a refresh or destroy registers no resources for a pack to analyze.
 */
async function policyBypass(update: UpdateRecord, readEvents: () => Promise<unknown[]>): Promise<PolicyBypass | undefined> {
  const required = update.requiredPolicies ?? [];
  if (update.kind !== 'update' || required.length === 0) return undefined;
  return judgeRequiredPacks(required, await readEvents());
}

/** `UpdateService.cancel`: kills the token first, so the running client stops at its next call, then settles. */
export async function cancelUpdate(deps: ServiceDeps, principal: Principal, ref: StackRef, updateId: string): Promise<void> {
  const stack = await loadStack(deps, principal, ref, 'cancel');
  const update = await updateOf(deps, stack, updateId);
  if (isTerminal(update)) return;
  const name = formatStackRef(stack);
  const spec = { org: stack.org, event: 'update.cancelled', target: name, description: `cancelled ${update.kind} ${updateId} of ${name} (started by ${update.requestedBy})` } as const;
  await audited(deps, principal, spec, async () => {
    // First kill the token, so the running client stops at its next call.
    await deps.storage.leases.revoke(stack.id, updateId);
    if (update.dryRun) {
      await changeUpdate(
        deps,
        stack.id,
        updateId,
        (u) => (isTerminal(u) ? undefined : { status: 'cancelled', endedAt: deps.now(), cancelledBy: principal.login }),
        (ended) => [updateEvent('ended', stack, ended, deps.now(), deps.options.serviceUrl)],
      );
      return;
    }
    await settle(deps, stack.id, updateId, 'cancelled', { cancelledBy: principal.login });
  });
}

async function recordDrift(deps: ServiceDeps, stack: Parameters<typeof recordDriftRun>[1], update: UpdateRecord, status: 'succeeded' | 'failed' | 'cancelled') {
  const events = (await recordedEvents(deps, stack.id, update.id)) ?? [];
  const changes = (await readSummary(deps, stack.id, update.id)) ?? {};
  // A `detect-drift` run's preview names its run (run-updates.ts); a user's has no such key.
  const runId = update.environment?.[DEPLOYMENT_ID_KEY];
  const run = runId ? await deps.storage.deployments.getRun(stack.id, runId) : undefined;
  return recordDriftRun(deps, stack, update, status, events, changes, run ? { id: run.id, version: run.version } : undefined);
}
