/**
 * An update's record outside its own lifecycle calls: reading it for a stack, changing it and the stack record with
 * conditional writes, and settling an ended or abandoned update into its stack (see update-service.ts for the
 * ordering that makes settling safe to repeat). Its own module so the stacks function, which reads an update's
 * status and folds crashed runs, bundles neither the lifecycle nor the hook gates and Lambda client that `start` needs.
 */
import { InvalidInputError, NotFoundError } from '../errors.js';
import { materializeUpdate } from '../journal/protocol.js';
import type { StackRef } from '../names.js';
import type { OutboxEvent } from '../../ports/hook-store.js';
import type { StackChanges, StackRecord } from '../../ports/stack-store.js';
import type { UpdateChanges, UpdateRecord, UpdateStatus } from '../../ports/update-store.js';
import { updateEvent } from '../hooks/payloads.js';
import { type UpdateEventCause } from '../hooks/index.js';
import { resourceCountOf } from '../checkpoints/checkpoint-body.js';
import { isStaleRevision, loadStack } from '../kernel/authorization.js';
import type { ServiceDeps } from '../kernel/deps.js';
import { lastUpdateCheckpoint, loadCheckpoint, resourceCountInName, updateResultName } from '../state/stack-state.js';
import type { Principal } from '../kernel/principal.js';
import { recordedChanges } from './recorded-changes.js';
import type { UpdateStatusView } from './types.js';

const TERMINAL: ReadonlySet<UpdateStatus> = new Set(['succeeded', 'failed', 'cancelled']);

/** Where an update's summary event (its resource changes) is kept. */
export function summaryName(updateId: string): string {
  return `updates/${updateId}/summary`;
}

export function isTerminal(update: UpdateRecord): boolean {
  return TERMINAL.has(update.status);
}

/** The state an ending update leaves behind. */
interface UpdateOutcome {
  checkpoint?: string;
  resourceCount?: number;
}

/** Reads `fn`'s changes against the latest record and writes them conditionally, retrying lost races. */
export async function changeUpdate(
  deps: ServiceDeps,
  stackId: string,
  updateId: string,
  fn: (current: UpdateRecord) => UpdateChanges | undefined,
  events?: (changed: UpdateRecord) => OutboxEvent[],
): Promise<UpdateRecord> {
  for (;;) {
    const current = await deps.storage.updates.get(stackId, updateId);
    const changes = fn(current);
    if (!changes) return current;
    try {
      const announced = events?.({ ...current, ...changes });
      return await deps.storage.updates.update(stackId, updateId, current.revision, changes, announced);
    } catch (error) {
      if (!isStaleRevision(error)) throw error;
    }
  }
}

export async function changeStack(
  deps: ServiceDeps,
  stackId: string,
  fn: (current: StackRecord) => StackChanges | undefined,
  events?: (current: StackRecord) => OutboxEvent[],
): Promise<StackRecord> {
  for (;;) {
    const current = await deps.storage.stacks.getById(stackId);
    const changes = fn(current);
    if (!changes) return current;
    try {
      return await deps.storage.stacks.update(stackId, current.revision, changes, events?.(current));
    } catch (error) {
      if (!isStaleRevision(error)) throw error;
    }
  }
}

/**
 * What a non-dry-run update leaves behind: its last plain checkpoint, or its journal/verbatim saves materialised as
 * `updates/<id>/result`, or (nothing saved) the state it started from.
 */
async function resolveOutcome(deps: ServiceDeps, stack: StackRecord, updateId: string): Promise<UpdateOutcome> {
  const last = await lastUpdateCheckpoint(deps, stack.id, updateId);
  if (last) {
    // The count was taken when the save was checked; only saves named before that are read back to count them.
    const recorded = resourceCountInName(last);
    return { checkpoint: last, resourceCount: recorded ?? resourceCountOf(await loadCheckpoint(deps, stack.id, last)) };
  }
  const resultName = updateResultName(updateId);
  const materialized = await materializeUpdate(deps.storage.checkpoints, stack.id, updateId, resultName, deps.now);
  if (materialized) return { checkpoint: resultName, resourceCount: materialized.resourceCount };
  return { checkpoint: stack.currentCheckpoint, resourceCount: stack.resourceCount };
}

/** The resource changes an update's summary event reported, else those its step events show. */
export async function readSummary(
  deps: ServiceDeps,
  stackId: string,
  updateId: string,
): Promise<Record<string, number> | undefined> {
  try {
    const bytes = await deps.storage.checkpoints.get({ stackId, name: summaryName(updateId) });
    const summary = JSON.parse(Buffer.from(bytes).toString('utf8')) as { resourceChanges?: Record<string, number> };
    return summary.resourceChanges;
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    // No summary (cancelled, killed): what the step events show. Events are best effort: without any, no changes.
    return recordedChanges(deps, stackId, updateId);
  }
}

/**
 * Ends a non-dry-run update with `status` and folds what it saved into the stack. `extra` is applied in the same
 * stack write (a start folding a crashed run passes its own `activeUpdate` and tags). Safe to repeat at any point:
 * once the update record is terminal its version and checkpoint are reused, history is idempotent per version, and
 * the stack is written only while it still names this update as active.
 */
export async function settle(
  deps: ServiceDeps,
  stackId: string,
  updateId: string,
  status: 'succeeded' | 'failed' | 'cancelled',
  options: SettleOptions = {},
): Promise<StackRecord> {
  const cause = options.cause ?? 'ended';
  let outcome: UpdateOutcome | undefined;
  let resourceChanges: Record<string, number> | undefined;
  for (;;) {
    const stack = await deps.storage.stacks.getById(stackId);
    let update = await deps.storage.updates.get(stackId, updateId);
    if (stack.activeUpdate !== updateId) {
      if (!isTerminal(update)) {
        // It never became the stack's running update (its start failed half way), so it produced no version.
        update = await changeUpdate(deps, stackId, updateId, (u) =>
          isTerminal(u) ? undefined : { status, endedAt: deps.now(), ...endingFields(options) },
        );
      } else if (update.version !== undefined && update.version <= stack.version) {
        await deps.storage.updates.recordHistory(update);
      }
      return options.extra ? changeStack(deps, stackId, () => options.extra, options.extraEvents) : stack;
    }
    if (!isTerminal(update)) {
      outcome ??= await resolveOutcome(deps, stack, updateId);
      resourceChanges ??= await readSummary(deps, stackId, updateId);
      const version = stack.version + 1;
      const ending: UpdateChanges = { status, endedAt: deps.now(), version, ...endingFields(options) };
      if (outcome.checkpoint !== undefined) ending.checkpoint = outcome.checkpoint;
      if (outcome.resourceCount !== undefined) ending.resourceCount = outcome.resourceCount;
      if (resourceChanges !== undefined) ending.resourceChanges = resourceChanges;
      update = await changeUpdate(deps, stackId, updateId, (u) => (isTerminal(u) ? undefined : ending));
    }
    const version = Math.max(update.version ?? 0, stack.version + 1);
    if (update.version !== version) {
      update = await changeUpdate(deps, stackId, updateId, () => ({ version }));
    }
    await deps.storage.updates.recordHistory(update);
    const changes: StackChanges = {
      version,
      lastUpdate: update.endedAt ?? deps.now(),
      currentCheckpoint: update.checkpoint ?? null,
      resourceCount: update.resourceCount ?? null,
      activeUpdate: null,
      ...options.extra,
    };
    // The update's end is announced in the same write that makes it the stack's state (docs/hooks.md, outbox).
    const events = [
      updateEvent(cause, stack, update, deps.now(), deps.options.serviceUrl),
      ...(options.extraEvents?.(stack) ?? []),
    ];
    try {
      return await deps.storage.stacks.update(stackId, stack.revision, changes, events);
    } catch (error) {
      if (!isStaleRevision(error)) throw error;
    }
  }
}

interface SettleOptions {
  completedTokenHash?: string;
  /** Who cancelled the update, recorded with its ending. */
  cancelledBy?: string;
  /** Applied in the same stack write (a start folding a crashed run passes its own `activeUpdate` and tags). */
  extra?: StackChanges;
  /** Hook events of `extra`, written with it. */
  extraEvents?: (stack: StackRecord) => OutboxEvent[];
  /** `lease-expired` when a crashed or abandoned run is folded. */
  cause?: UpdateEventCause;
  /** Why the service ended a `succeeded` completion as failed: its required policy packs (policy/enforcement-check.ts). */
  policyBypass?: string;
}

/**
 * The ending's fields that say how it ended: the completing token's hash, who cancelled it, or that it was
 * abandoned (its lease expired), so history can say more than `failed`.
 */
function endingFields(options: SettleOptions): UpdateChanges {
  return {
    ...(options.completedTokenHash ? { completedTokenHash: options.completedTokenHash } : {}),
    ...(options.cancelledBy ? { cancelledBy: options.cancelledBy } : {}),
    ...(options.cause === 'lease-expired' ? { endReason: 'lease-expired' as const } : {}),
    ...(options.policyBypass !== undefined ? { endReason: 'policy-bypassed' as const, endMessage: options.policyBypass } : {}),
  };
}

/**
 * Folds the stack's running update into the stack if its lease is gone (the run crashed or its client vanished):
 * its last saved state becomes the stack's current state, and it is recorded in history as failed. Returns the
 * stack as it is afterwards. Stack operations that replace the state (import, rename) call this first, so a later
 * start cannot fold an old run over their result.
 */
export async function settleAbandonedUpdate(deps: ServiceDeps, stack: StackRecord): Promise<StackRecord> {
  if (!stack.activeUpdate) return stack;
  const lease = await deps.storage.leases.current(stack.id);
  if (lease?.updateId === stack.activeUpdate) return stack;
  return settle(deps, stack.id, stack.activeUpdate, 'failed', { cause: 'lease-expired' });
}

/** The update `updateId` of `stack`; `NotFoundError` for ids of other stacks or none at all. */
export async function updateOf(deps: ServiceDeps, stack: StackRecord, updateId: string): Promise<UpdateRecord> {
  const notFound = () =>
    new NotFoundError(
      `Update '${String(updateId).slice(0, 140)}' of stack '${stack.org}/${stack.project}/${stack.stack}' not found.`,
    );
  if (typeof updateId !== 'string' || updateId.length === 0 || updateId.length > 128) throw notFound();
  try {
    return await deps.storage.updates.get(stack.id, updateId);
  } catch (error) {
    if (error instanceof NotFoundError || error instanceof InvalidInputError) throw notFound();
    throw error;
  }
}

/** `UpdateService.status`: who started the update, when, and how it stands. */
export async function updateStatus(deps: ServiceDeps, principal: Principal, ref: StackRef, updateId: string): Promise<UpdateStatusView> {
  const stack = await loadStack(deps, principal, ref, 'view');
  const update = await updateOf(deps, stack, updateId);
  return { status: update.status, kind: update.kind, requestedBy: update.requestedBy, startedAt: update.startedAt };
}
