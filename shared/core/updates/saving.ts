/**
 * Saving a running update's state and events. Each save is checked whole before anything is written, and the
 * token's save number is taken only then, in the one conditional lease write (`guardedSave`); the state is one
 * write-once object (plain checkpoint) or what the journal's plan writes (verbatim, delta, journal entries).
 */
import { ConflictError, InvalidInputError } from '../errors.js';
import { planDeltaCheckpoint, planJournalEntries, planVerbatimCheckpoint } from '../journal/update-checkpoints.js';
import type { StackRef } from '../names.js';
import { prepareCheckpoint } from '../checkpoints/checkpoint-body.js';
import type { CheckpointUpload, UntypedDeployment } from '../checkpoints/index.js';
import type { ServiceDeps } from '../kernel/deps.js';
import { checkpointLoader, updateCheckpointName } from '../state/stack-state.js';
import { eventsPrefix } from './recorded-changes.js';
import { summaryName } from './update-records.js';
import { tokenRef } from './update-token.js';

const SEQ_DIGITS = 12;

function eventsName(updateId: string, first: number, last: number, count: number): string {
  const pad = (n: number) => String(n).padStart(SEQ_DIGITS, '0');
  return `${eventsPrefix(updateId)}${pad(first)}-${pad(last)}-${count}`;
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

/**
 * Runs a save so that a rejected one changes nothing: the token is checked (a read) while the body is checked,
 * a dead token winning over a bad body; only then does `commit` take the save's number, in the conditional lease
 * write that also refuses dry-run tokens, right before the state is written.
 */
async function guardedSave<T>(
  deps: ServiceDeps,
  ref: StackRef,
  updateId: string,
  token: string,
  check: (stackId: string) => Promise<T>,
): Promise<{ stackId: string; checked: T; commit: () => Promise<number> }> {
  const tokenCheck = tokenRef(ref, updateId, token);
  const [live, checked] = await Promise.allSettled([
    deps.storage.leases.validate(tokenCheck),
    // One turn of the event loop lets the SDK put the token read on the wire before the CPU-bound checks.
    new Promise<void>((resolve) => setImmediate(resolve)).then(() => check(tokenCheck.stackId)),
  ]);
  if (live.status === 'rejected') throw live.reason;
  if (checked.status === 'rejected') throw checked.reason;
  return { stackId: tokenCheck.stackId, checked: checked.value, commit: () => deps.storage.leases.nextSave(tokenCheck) };
}

/** `UpdateService.saveCheckpoint`: the n-th plain save, one write-once object named with its resource count. */
export async function saveCheckpoint(
  deps: ServiceDeps,
  ref: StackRef,
  updateId: string,
  token: string,
  deployment: UntypedDeployment | Uint8Array | CheckpointUpload,
): Promise<void> {
  const { stackId, checked, commit } = await guardedSave(deps, ref, updateId, token, () =>
    prepareCheckpoint(deps.storage.checkpoints, deployment),
  );
  const save = await commit();
  await deps.storage.checkpoints.put({ stackId, name: updateCheckpointName(updateId, save, checked.resourceCount) }, checked.prepared);
}

/** `UpdateService.saveVerbatimCheckpoint`, as the journal plans it. */
export async function saveVerbatimCheckpoint(deps: ServiceDeps, ref: StackRef, updateId: string, token: string, body: Buffer): Promise<void> {
  const { checked, commit } = await guardedSave(deps, ref, updateId, token, (stackId) =>
    planVerbatimCheckpoint(deps.storage.checkpoints, stackId, updateId, body),
  );
  await checked.write(commit);
}

/** `UpdateService.saveDeltaCheckpoint`, as the journal plans it. */
export async function saveDeltaCheckpoint(deps: ServiceDeps, ref: StackRef, updateId: string, token: string, body: Buffer): Promise<void> {
  const { checked, commit } = await guardedSave(deps, ref, updateId, token, (stackId) =>
    planDeltaCheckpoint(deps.storage.checkpoints, stackId, updateId, body),
  );
  await checked.write(commit);
}

/** `UpdateService.saveJournalEntries`, as the journal plans it. */
export async function saveJournalEntries(deps: ServiceDeps, ref: StackRef, updateId: string, token: string, body: Buffer): Promise<void> {
  const { checked, commit } = await guardedSave(deps, ref, updateId, token, (stackId) =>
    planJournalEntries(deps.storage.checkpoints, stackId, updateId, body, checkpointLoader(deps, stackId), deps.now),
  );
  await checked.write(commit);
}

/** `UpdateService.recordEvents`: one write-once object per batch, and the summary's resource changes once seen. */
export async function recordEvents(deps: ServiceDeps, ref: StackRef, updateId: string, token: string, events: unknown[]): Promise<void> {
  const { storage } = deps;
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
}
