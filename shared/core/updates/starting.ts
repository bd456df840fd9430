/**
 * Starting an update: a dry run gets a token, any other run the stack's lease, asked of the approvals rules and the
 * gates first and decided by reads alone when it must be refused (`LeaseDecisions`); the stack then names it as its running update, folding
 * a crashed predecessor on the way.
 */
import { ConflictError, InvalidInputError } from '../errors.js';
import { negotiateJournalVersion } from '../journal/protocol.js';
import { recordUpdateBase } from '../journal/update-checkpoints.js';
import { formatStackRef, validateTags, type StackRef } from '../names.js';
import type { OutboxEvent } from '../../ports/hook-store.js';
import type { StackChanges, StackRecord } from '../../ports/stack-store.js';
import type { UpdateRecord } from '../../ports/update-store.js';
import { runGates } from '../hooks/gates.js';
import { updateEvent } from '../hooks/payloads.js';
import { hookRuntime } from '../hooks/runtime.js';
import { checkApprovals, claimPlan } from '../approvals/start-gate.js';
import { audited } from '../audit/audit.js';
import { isStaleRevision, loadStack } from '../kernel/authorization.js';
import type { ServiceDeps } from '../kernel/deps.js';
import { recordRunUpdate } from './run-updates.js';
import type { Principal } from '../kernel/principal.js';
import { LeaseDecisions } from './lease-decisions.js';
import { epochSeconds } from './update-token.js';
import { changeStack, changeUpdate, isTerminal, settle, updateOf } from './update-records.js';
import type { StartedUpdate, StartUpdateRequest } from './types.js';

export const DEFAULT_LEASE_MS = 300_000;
export const MIN_LEASE_MS = 1_000;
export const MAX_LEASE_MS = 300_000;
/** The longest lease an operator may allow (`ServiceOptions.maxLeaseMs`). */
export const LEASE_CEILING_MS = 3_600_000;

/** A requested lease duration clamped to the operator's bounds; absent, the default. */
export type LeaseDuration = (requested: number | undefined) => number;

/** The lease durations `deps.options` allow. */
export function leaseDurations(deps: ServiceDeps): LeaseDuration {
  const ceiling = Math.min(deps.options.maxLeaseMs ?? MAX_LEASE_MS, LEASE_CEILING_MS);
  const floor = Math.min(deps.options.minLeaseMs ?? MIN_LEASE_MS, ceiling);
  const defaultLease = deps.options.defaultLeaseMs ?? DEFAULT_LEASE_MS;
  return (requested) => {
    if (requested === undefined) return Math.min(Math.max(defaultLease, floor), ceiling);
    if (typeof requested !== 'number' || !Number.isFinite(requested) || requested <= 0) {
      throw new InvalidInputError('The lease duration must be a positive number of milliseconds.');
    }
    return Math.min(Math.max(Math.round(requested), floor), ceiling);
  };
}

/** `UpdateService.start`: one per service, so that its lease decisions and hook runtime are shared by every start. */
export type StartUpdate = (principal: Principal, ref: StackRef, updateId: string, request: StartUpdateRequest) => Promise<StartedUpdate>;

/** Builds `start` on the deps' storage, hooks and lease bounds. */
export function updateStarter(deps: ServiceDeps, leaseDuration: LeaseDuration): StartUpdate {
  const { storage } = deps;
  const hooks = hookRuntime({ ...deps.options.hooks, keys: deps.storage.keys });
  const decisions = new LeaseDecisions();

  return async (principal, ref, updateId, request) => {
    const found = await loadStack(deps, principal, ref, 'update');
    // The holder is read alongside the update, so a start that must be refused is refused by reads alone: it neither
    // asks the gates nor queues a write behind the other contenders (see LeaseDecisions). Granting stays one
    // conditional write.
    const [update, holder] = await Promise.all([updateOf(deps, found, updateId), storage.leases.current(found.id)]);
    if (isTerminal(update)) {
      throw new ConflictError(`Update ${updateId} has already ended (${update.status}); create a new update.`, {
        updateId,
        status: update.status,
      });
    }
    const tags = request?.tags === undefined ? undefined : validateTags(request.tags);
    const grantRequest = {
      stackId: found.id,
      updateId,
      holder: principal.login,
      durationMs: leaseDuration(request?.leaseDurationMs),
      stack: { org: found.org, project: found.project, stack: found.stack },
    };
    const journalVersion = negotiateJournalVersion(request?.journalVersion);
    if (update.dryRun) {
      const grant = await storage.leases.issue(grantRequest);
      const stack = tags ? await changeStack(deps, found.id, () => ({ tags })) : found;
      await changeUpdate(deps, found.id, updateId, (u) =>
        isTerminal(u) ? undefined : { status: 'in-progress', startedAt: deps.now(), version: stack.version },
      );
      const tokenExpiration = epochSeconds(grant.expiresAt);
      await recordRunUpdate(deps, principal, found.id, updateId, stack.version);
      return { version: stack.version, token: grant.token, tokenExpiration, journalVersion };
    }
    // Approvals are decided by reads before the gates and the lease; the plan is claimed once the lease is ours.
    const plan = await checkApprovals(deps, principal, found, update, request?.plan);
    const name = formatStackRef(found);
    const grant = await decisions.decide(found.id, updateId, holder, () => storage.leases.current(found.id), async () => {
      // Gates answer before the lease is taken, so a denied update never holds the stack.
      await runGates(storage.hooks, hooks, found, update, principal);
      const started = { org: found.org, event: 'update.started', target: name, description: `started ${update.kind} ${updateId} of ${name}` } as const;
      return audited(deps, principal, started, () => storage.leases.acquire(grantRequest));
    });
    try {
      if (plan) await claimPlan(deps, plan, updateId);
      const stack = await markActive(deps, found.id, update, tags);
      await recordUpdateBase(storage.checkpoints, found.id, updateId, stack.currentCheckpoint);
      const version = stack.version + 1;
      await changeUpdate(deps, found.id, updateId, (u) =>
        isTerminal(u) ? undefined : { status: 'in-progress', startedAt: deps.now(), version },
      );
      await recordRunUpdate(deps, principal, found.id, updateId, version);
      return { version, token: grant.token, tokenExpiration: epochSeconds(grant.expiresAt), journalVersion };
    } catch (error) {
      // Do not leave the stack locked for a whole lease by a start that never answered.
      await storage.leases.revoke(found.id, updateId).catch(() => undefined);
      throw error;
    }
  };
}

/** Marks `update` as the stack's running update (folding a crashed predecessor first) and applies tags. */
async function markActive(deps: ServiceDeps, stackId: string, update: UpdateRecord, tags: Record<string, string> | undefined): Promise<StackRecord> {
  const updateId = update.id;
  const extra: StackChanges = tags ? { activeUpdate: updateId, tags } : { activeUpdate: updateId };
  const started = (stack: StackRecord): OutboxEvent[] => [
    updateEvent('started', stack, { ...update, status: 'in-progress', version: stack.version + 1 }, deps.now(), deps.options.serviceUrl),
  ];
  for (;;) {
    const stack = await deps.storage.stacks.getById(stackId);
    if (stack.activeUpdate && stack.activeUpdate !== updateId) {
      // We hold the lease, so the previous run's lease is gone: it crashed or was abandoned.
      return settle(deps, stackId, stack.activeUpdate, 'failed', { extra, extraEvents: started, cause: 'lease-expired' });
    }
    try {
      return await deps.storage.stacks.update(stackId, stack.revision, extra, started(stack));
    } catch (error) {
      if (!isStaleRevision(error)) throw error;
    }
  }
}
