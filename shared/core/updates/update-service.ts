/**
 * The update lifecycle (pulumi-service-api.md §3.4, §4): create, start (lease or dry-run token), state saves,
 * events, renew, complete, cancel.
 *
 * Design for the hot path (`PATCH …/checkpoint`): the update id embeds the stack's immutable id, so update-token
 * routes never resolve the name in the URL; the token check is ONE conditional write on the stack's lease item
 * (`LeaseStore.nextSave`: token hash, update id, expiry and the stack name the lease was granted under, all in the
 * condition) that also hands out the save's number; the save is then ONE write-once object
 * `updates/<updateId>/checkpoints/<n>-<count>`. The stack record is written only at start, complete and cancel (and when a
 * crashed update is folded); until then export reads the running update's latest save (`../state/stack-state.ts`).
 *
 * Ending a non-dry-run update ("settling" it: complete, cancel, or folding a crashed one) is ordered so a crash at
 * any point is repaired by repeating the call: the update record (status, version, the checkpoint it produced) is
 * written first, then its history entry, then ONE conditional stack write moves version and current checkpoint and
 * clears `activeUpdate`; the lease goes last.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { ConflictError, ForbiddenError, InvalidInputError, TooLargeError } from '../errors.js';
import { negotiateJournalVersion } from '../journal/protocol.js';
import { planDeltaCheckpoint, planJournalEntries, planVerbatimCheckpoint, recordUpdateBase } from '../journal/update-checkpoints.js';
import { formatStackRef, validateStackRef, validateTags, type StackRef } from '../names.js';
import type { OutboxEvent } from '../../ports/hook-store.js';
import { runGates } from '../hooks/gates.js';
import { updateEvent } from '../hooks/payloads.js';
import { hookRuntime } from '../hooks/runtime.js';
import type { TokenRef } from '../../ports/lease-store.js';
import type { StackChanges, StackRecord } from '../../ports/stack-store.js';
import type { UpdateKind, UpdateRecord } from '../../ports/update-store.js';
import { audited } from '../audit/audit.js';
import { isStaleRevision, loadStack } from '../kernel/authorization.js';
import { LeaseDecisions } from './lease-decisions.js';
import { prepareCheckpoint } from '../checkpoints/checkpoint-body.js';
import type { ServiceDeps } from '../kernel/deps.js';
import { changeStack, changeUpdate, isTerminal, settle, summaryName, updateOf, updateStatus } from './update-records.js';
import { checkpointLoader, newUpdateId, stackIdOfUpdate, updateCheckpointName } from '../state/stack-state.js';
import type { CheckpointUpload, UntypedDeployment } from '../checkpoints/index.js';
import type { CreateUpdateRequest, StartedUpdate, StartUpdateRequest, UpdateService } from './types.js';
import type { Principal, RequestInfo } from '../kernel/principal.js';

export const DEFAULT_LEASE_MS = 300_000;
export const MIN_LEASE_MS = 1_000;
export const MAX_LEASE_MS = 300_000;
/** The longest lease an operator may allow (`ServiceOptions.maxLeaseMs`). */
export const LEASE_CEILING_MS = 3_600_000;

const CREATABLE_KINDS: ReadonlySet<string> = new Set(['update', 'preview', 'refresh', 'destroy', 'resource-import']);
const COMPLETION_STATUSES: ReadonlySet<string> = new Set(['succeeded', 'failed', 'cancelled']);
const SEQ_DIGITS = 12;
const MAX_MESSAGE_LENGTH = 4096;

const DEAD_TOKEN =
  'The update token is not valid for this update: the update completed, was cancelled, or its lease expired. ' +
  'Start a new update.';

function eventsName(updateId: string, first: number, last: number, count: number): string {
  const pad = (n: number) => String(n).padStart(SEQ_DIGITS, '0');
  return `updates/${updateId}/events/${pad(first)}-${pad(last)}-${count}`;
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/** The wire's token expiry: epoch seconds. */
function epochSeconds(ms: number): number {
  return Math.floor(ms / 1000);
}

/**
 * The public id of an update's lease token, as the audit log names it: a prefix of the SHA-256 the update record
 * keeps as `completedTokenHash`, which tells nothing about the token itself.
 */
export function leaseTokenId(tokenHash: string): string {
  return `update-${tokenHash.slice(0, 16)}`;
}

/** The lease-token reference for an update-token route; a malformed id or name cannot name a live token. */
function tokenRef(ref: StackRef, updateId: string, token: string): TokenRef & { stack: StackRef } {
  let stackId: string;
  let stack: StackRef;
  try {
    stackId = stackIdOfUpdate(updateId);
    stack = validateStackRef(ref);
  } catch (error) {
    throw new ForbiddenError(DEAD_TOKEN, { cause: error });
  }
  if (typeof token !== 'string' || token.length === 0) throw new ForbiddenError(DEAD_TOKEN);
  return { stackId, updateId, token, stack };
}

async function ignoreConflict(write: Promise<void>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (error instanceof ConflictError) return false;
    throw error;
  }
}

export function createUpdateService(deps: ServiceDeps): UpdateService {
  const { storage } = deps;
  const ceiling = Math.min(deps.options.maxLeaseMs ?? MAX_LEASE_MS, LEASE_CEILING_MS);
  const floor = Math.min(deps.options.minLeaseMs ?? MIN_LEASE_MS, ceiling);
  const defaultLease = deps.options.defaultLeaseMs ?? DEFAULT_LEASE_MS;
  const hooks = hookRuntime({ ...deps.options.hooks, keys: deps.storage.keys });
  const decisions = new LeaseDecisions();

  function leaseDuration(requested: number | undefined): number {
    if (requested === undefined) return Math.min(Math.max(defaultLease, floor), ceiling);
    if (typeof requested !== 'number' || !Number.isFinite(requested) || requested <= 0) {
      throw new InvalidInputError('The lease duration must be a positive number of milliseconds.');
    }
    return Math.min(Math.max(Math.round(requested), floor), ceiling);
  }


  /** Marks `updateId` as the stack's running update (folding a crashed predecessor first) and applies tags. */
  async function markActive(
    stackId: string,
    update: UpdateRecord,
    tags: Record<string, string> | undefined,
  ): Promise<StackRecord> {
    const updateId = update.id;
    const extra: StackChanges = tags ? { activeUpdate: updateId, tags } : { activeUpdate: updateId };
    const started = (stack: StackRecord): OutboxEvent[] => [
      updateEvent('started', stack, { ...update, status: 'in-progress', version: stack.version + 1 }, deps.now(), deps.options.serviceUrl),
    ];
    for (;;) {
      const stack = await storage.stacks.getById(stackId);
      if (stack.activeUpdate && stack.activeUpdate !== updateId) {
        // We hold the lease, so the previous run's lease is gone: it crashed or was abandoned.
        return settle(deps, stackId, stack.activeUpdate, 'failed', { extra, extraEvents: started, cause: 'lease-expired' });
      }
      try {
        return await storage.stacks.update(stackId, stack.revision, extra, started(stack));
      } catch (error) {
        if (!isStaleRevision(error)) throw error;
      }
    }
  }

  /**
   * Runs a save so that a rejected one changes nothing: the token is checked (a read) while the body is checked,
   * a dead token winning over a bad body; only then does `commit` take the save's number, in the conditional lease
   * write that also refuses dry-run tokens, right before the state is written.
   */
  async function guardedSave<T>(
    ref: StackRef,
    updateId: string,
    token: string,
    check: (stackId: string) => Promise<T>,
  ): Promise<{ stackId: string; checked: T; commit: () => Promise<number> }> {
    const tokenCheck = tokenRef(ref, updateId, token);
    const [live, checked] = await Promise.allSettled([
      storage.leases.validate(tokenCheck),
      // One turn of the event loop lets the SDK put the token read on the wire before the CPU-bound checks.
      new Promise<void>((resolve) => setImmediate(resolve)).then(() => check(tokenCheck.stackId)),
    ]);
    if (live.status === 'rejected') throw live.reason;
    if (checked.status === 'rejected') throw checked.reason;
    return { stackId: tokenCheck.stackId, checked: checked.value, commit: () => storage.leases.nextSave(tokenCheck) };
  }

  return {
    async create(principal: Principal, ref: StackRef, request: CreateUpdateRequest) {
      const stack = await loadStack(deps, principal, ref, 'update');
      if (!request || !CREATABLE_KINDS.has(request.kind)) {
        throw new InvalidInputError(
          `Unknown update kind '${String(request?.kind)}': expected update, preview, refresh, destroy or ` +
            `resource-import.`,
        );
      }
      const { message } = request;
      if (message !== undefined && (typeof message !== 'string' || message.length > MAX_MESSAGE_LENGTH)) {
        throw new InvalidInputError(`The update message must be text of at most ${MAX_MESSAGE_LENGTH} characters.`);
      }
      const environment = request.environment ?? {};
      const textValues = (map: object) => Object.values(map).every((v) => typeof v === 'string');
      if (typeof environment !== 'object' || Array.isArray(environment) || !textValues(environment)) {
        throw new InvalidInputError('The update environment must map names to strings.');
      }
      const config = request.config ?? {};
      if (typeof config !== 'object' || Array.isArray(config)) {
        throw new InvalidInputError('The update config must be an object.');
      }
      const id = newUpdateId(stack.id);
      await storage.updates.create({
        id,
        stackId: stack.id,
        kind: request.kind,
        dryRun: request.dryRun === true || request.kind === 'preview',
        status: 'not-started',
        requestedBy: principal.login,
        createdAt: deps.now(),
        ...(message ? { message } : {}),
        environment,
        config,
      });
      return { updateId: id };
    },

    async start(
      principal: Principal,
      ref: StackRef,
      updateId: string,
      request: StartUpdateRequest,
    ): Promise<StartedUpdate> {
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
        return { version: stack.version, token: grant.token, tokenExpiration, journalVersion };
      }
      const name = formatStackRef(found);
      const grant = await decisions.decide(found.id, updateId, holder, () => storage.leases.current(found.id), async () => {
        // Gates answer before the lease is taken, so a denied update never holds the stack.
        await runGates(storage.hooks, hooks, found, update, principal);
        const started = { org: found.org, event: 'update.started', target: name, description: `started ${update.kind} ${updateId} of ${name}` } as const;
        return audited(deps, principal, started, () => storage.leases.acquire(grantRequest));
      });
      try {
        const stack = await markActive(found.id, update, tags);
        await recordUpdateBase(storage.checkpoints, found.id, updateId, stack.currentCheckpoint);
        const version = stack.version + 1;
        await changeUpdate(deps, found.id, updateId, (u) =>
          isTerminal(u) ? undefined : { status: 'in-progress', startedAt: deps.now(), version },
        );
        return { version, token: grant.token, tokenExpiration: epochSeconds(grant.expiresAt), journalVersion };
      } catch (error) {
        // Do not leave the stack locked for a whole lease by a start that never answered.
        await storage.leases.revoke(found.id, updateId).catch(() => undefined);
        throw error;
      }
    },

    async renew(ref: StackRef, updateId: string, token: string, durationMs?: number) {
      const grant = await storage.leases.renew(tokenRef(ref, updateId, token), leaseDuration(durationMs));
      return { token: grant.token, tokenExpiration: epochSeconds(grant.expiresAt) };
    },

    async saveCheckpoint(
      ref: StackRef,
      updateId: string,
      token: string,
      deployment: UntypedDeployment | Uint8Array | CheckpointUpload,
    ) {
      const { stackId, checked, commit } = await guardedSave(ref, updateId, token, () =>
        prepareCheckpoint(storage.checkpoints, deployment),
      );
      const save = await commit();
      await storage.checkpoints.put({ stackId, name: updateCheckpointName(updateId, save, checked.resourceCount) }, checked.prepared);
    },

    async saveVerbatimCheckpoint(ref: StackRef, updateId: string, token: string, body: Buffer) {
      const { checked, commit } = await guardedSave(ref, updateId, token, (stackId) =>
        planVerbatimCheckpoint(storage.checkpoints, stackId, updateId, body),
      );
      await checked.write(commit);
    },

    async saveDeltaCheckpoint(ref: StackRef, updateId: string, token: string, body: Buffer) {
      const { checked, commit } = await guardedSave(ref, updateId, token, (stackId) =>
        planDeltaCheckpoint(storage.checkpoints, stackId, updateId, body),
      );
      await checked.write(commit);
    },

    async saveJournalEntries(ref: StackRef, updateId: string, token: string, body: Buffer) {
      const { checked, commit } = await guardedSave(ref, updateId, token, (stackId) =>
        planJournalEntries(storage.checkpoints, stackId, updateId, body, checkpointLoader(deps, stackId), deps.now),
      );
      await checked.write(commit);
    },

    async validateToken(ref: StackRef, updateId: string, token: string) {
      await storage.leases.validate(tokenRef(ref, updateId, token));
    },

    async recordEvents(ref: StackRef, updateId: string, token: string, events: unknown[]) {
      const check = tokenRef(ref, updateId, token);
      await storage.leases.validate(check);
      if (!Array.isArray(events)) throw new InvalidInputError('The events batch must have an "events" list.');
      if (events.length === 0) return;
      let first = Number.MAX_SAFE_INTEGER;
      let last = -1;
      let summary: { resourceChanges?: unknown } | undefined;
      for (const [i, event] of events.entries()) {
        const sequence = (event as { sequence?: unknown } | null)?.sequence;
        if (typeof sequence !== 'number' || !Number.isSafeInteger(sequence) || sequence < 0) {
          throw new InvalidInputError(`Event #${i} needs a non-negative integer "sequence".`);
        }
        first = Math.min(first, sequence);
        last = Math.max(last, sequence);
        summary ??= (event as { summaryEvent?: { resourceChanges?: unknown } }).summaryEvent;
      }
      const stackId = check.stackId;
      // A retried batch has the same sequences, so it lands on the same write-once name and changes nothing.
      const batchKey = { stackId, name: eventsName(updateId, first, last, events.length) };
      await ignoreConflict(storage.checkpoints.put(batchKey, Buffer.from(JSON.stringify(events))));
      const changes = summary?.resourceChanges;
      if (changes && typeof changes === 'object' && Object.values(changes).every((n) => typeof n === 'number')) {
        const summary = Buffer.from(JSON.stringify({ resourceChanges: changes }));
        await ignoreConflict(storage.checkpoints.put({ stackId, name: summaryName(updateId) }, summary));
      }
    },

    async complete(ref: StackRef, updateId: string, token: string, status: 'succeeded' | 'failed' | 'cancelled', request?: RequestInfo) {
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
        if (!update.dryRun) await settle(deps, check.stackId, updateId, status);
        return;
      }
      const update = await storage.updates.get(check.stackId, updateId);
      if (update.dryRun) {
        await changeUpdate(
          deps,
          check.stackId,
          updateId,
          (u) => (isTerminal(u) ? undefined : { status, endedAt: deps.now(), completedTokenHash: tokenHash }),
          (ended) => [updateEvent('ended', { ...check.stack, id: check.stackId }, ended, deps.now(), deps.options.serviceUrl)],
        );
      } else {
        // Done with the update token: the entry names the update's requester and the lease token's public id.
        const name = formatStackRef(check.stack);
        const actor = { login: update.requestedBy, tokenId: leaseTokenId(tokenHash), ...(request ? { request } : {}) };
        const spec = { org: ref.org, event: 'update.completed', target: name, description: `${update.kind} ${updateId} of ${name} ${status}` } as const;
        await audited(deps, actor, spec, () => settle(deps, check.stackId, updateId, status, { completedTokenHash: tokenHash }));
      }
      await storage.leases.release(check).catch((error: unknown) => {
        // Expired between the check and now: the completion is recorded all the same.
        if (!(error instanceof ForbiddenError)) throw error;
      });
    },

    async cancel(principal: Principal, ref: StackRef, updateId: string) {
      const stack = await loadStack(deps, principal, ref, 'cancel');
      const update = await updateOf(deps, stack, updateId);
      if (isTerminal(update)) return;
      const name = formatStackRef(stack);
      const spec = { org: stack.org, event: 'update.cancelled', target: name, description: `cancelled ${update.kind} ${updateId} of ${name} (started by ${update.requestedBy})` } as const;
      await audited(deps, principal, spec, async () => {
        // First kill the token, so the running client stops at its next call.
        await storage.leases.revoke(stack.id, updateId);
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
    },

    status: (...args) => updateStatus(deps, ...args),
  };
}
