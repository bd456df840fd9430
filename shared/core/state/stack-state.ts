/**
 * Where a stack's deployment lives. Every state a stack ever had is an immutable object in the checkpoint store;
 * the stack record only names the current one (`currentCheckpoint`), and each history entry names the one its
 * version produced (`UpdateRecord.checkpoint`).
 *
 * Object names under the stack (all write-once):
 * - `checkpoints/<epoch ms, 13 digits>-<random>`   a state written outside an update (import, rename, initial state)
 * - `updates/<updateId>/checkpoints/<n, 12 digits>-<resource count>` the n-th plain `checkpoint` save of an update
   (the count, taken when the save was checked, lets `complete` record it without reading the state back)
 * - `updates/<updateId>/result`                    a journaled/verbatim update materialised at complete (or fold)
 * - plus the journal/verbatim objects of `../journal/update-checkpoints.ts`
 *
 * While an update runs (or after it crashed, until the next start folds it), the stack's current state is that
 * update's latest save, so a checkpoint is visible to export the moment its PATCH returns and survives a crash.
 */
import { randomBytes } from 'node:crypto';
import { NotFoundError } from '../errors.js';
import { parseStoredDeployment } from '../checkpoints/stored-deployment.js';
import type { StackRecord } from '../../ports/stack-store.js';
import type { ServiceDeps } from '../kernel/deps.js';
import type { UntypedDeployment, VersionedDeployment } from '../checkpoints/index.js';

const UPDATE_SUFFIX_HEX = 32;
const SAVE_DIGITS = 12;
/** `<stackId>.<128 random bits as hex>`; stack ids never contain '.', and the whole id stays within 128 characters. */
const UPDATE_ID = /^([A-Za-z0-9][A-Za-z0-9_-]{0,94})\.([0-9a-f]{32})$/;

/**
 * A new update id. It embeds the stack's immutable id so update-token routes find the stack's partition and
 * objects without resolving the name in the URL.
 */
export function newUpdateId(stackId: string): string {
  return `${stackId}.${randomBytes(UPDATE_SUFFIX_HEX / 2).toString('hex')}`;
}

/** The stack id inside an update id; anything not shaped like one of ours is `NotFoundError` (nothing can match it). */
export function stackIdOfUpdate(updateId: string): string {
  const match = typeof updateId === 'string' ? UPDATE_ID.exec(updateId) : null;
  if (!match) {
    throw new NotFoundError(
      `Update '${String(updateId).slice(0, 140)}' not found: use the update id returned when the update was created.`,
    );
  }
  return match[1]!;
}

export function updateCheckpointPrefix(updateId: string): string {
  return `updates/${updateId}/checkpoints/`;
}

/**
 * Name of the n-th (1-based) plain checkpoint save of an update, holding `resourceCount` resources; names sort in
 * save order (the number is zero-padded and comes first).
 */
export function updateCheckpointName(updateId: string, n: number, resourceCount: number): string {
  return `${updateCheckpointPrefix(updateId)}${String(n).padStart(SAVE_DIGITS, '0')}-${resourceCount}`;
}

/**
 * The resource count an update checkpoint's name records, or `undefined` for a name that records none (saves
 * stored before names carried the count).
 */
export function resourceCountInName(name: string): number | undefined {
  const match = /-(\d{1,9})$/.exec(name.slice(name.lastIndexOf('/') + 1));
  return match ? Number(match[1]) : undefined;
}

/** Where a journaled or verbatim update's final state is materialised (deterministic, so repeats are harmless). */
export function updateResultName(updateId: string): string {
  return `updates/${updateId}/result`;
}

/** `{"version":3,"deployment":{"manifest":…}}`: what a stack that was never updated exports (§6.1). */
export function minimalDeployment(now: number): UntypedDeployment {
  return { version: 3, deployment: { manifest: { time: new Date(now).toISOString(), magic: '', version: '' } } };
}

/** Reads a stored deployment by name. */
export async function loadCheckpoint(deps: ServiceDeps, stackId: string, name: string): Promise<UntypedDeployment> {
  const bytes = await deps.storage.checkpoints.get({ stackId, name });
  return parseDeployment(bytes, name);
}

function parseDeployment(bytes: Uint8Array, name: string): UntypedDeployment {
  return parseStoredDeployment(bytes, name) as unknown as UntypedDeployment;
}

/** The name of an update's latest plain checkpoint, if it saved any. */
export async function lastUpdateCheckpoint(
  deps: ServiceDeps,
  stackId: string,
  updateId: string,
): Promise<string | undefined> {
  const names = await deps.storage.checkpoints.list(stackId, updateCheckpointPrefix(updateId));
  return names[names.length - 1];
}

/** Loads base checkpoints for journal replay. */
export function checkpointLoader(deps: ServiceDeps, stackId: string): (name: string) => Promise<VersionedDeployment> {
  return async (name) => (await loadCheckpoint(deps, stackId, name)) as unknown as VersionedDeployment;
}

/**
 * The latest state an update saved, by any protocol: its last plain checkpoint, or its journal replayed / last
 * verbatim document. `undefined` when it saved nothing.
 */
export async function latestUpdateState(
  deps: ServiceDeps,
  stackId: string,
  updateId: string,
): Promise<UntypedDeployment | undefined> {
  const last = await lastUpdateCheckpoint(deps, stackId, updateId);
  if (last) return loadCheckpoint(deps, stackId, last);
  // Journal replay is imported only here, so reading a stack that has no running update never loads it.
  const { currentUpdateDeployment } = await import('../journal/index.js');
  const current = await currentUpdateDeployment(deps.storage.checkpoints, stackId, updateId, deps.now);
  return current ? parseDeployment(current.text, updateResultName(updateId)) : undefined;
}

/**
 * The stack's current deployment: the running (or crashed, not yet folded) update's latest save, else the
 * checkpoint the stack names, else a valid minimal deployment.
 */
export async function currentDeployment(deps: ServiceDeps, stack: StackRecord): Promise<UntypedDeployment> {
  if (stack.activeUpdate) {
    const running = await latestUpdateState(deps, stack.id, stack.activeUpdate);
    if (running) return running;
  }
  if (stack.currentCheckpoint) return loadCheckpoint(deps, stack.id, stack.currentCheckpoint);
  return minimalDeployment(deps.now());
}

/** The deployment a given version produced; `NotFoundError` for versions the stack never had. */
export async function deploymentOfVersion(
  deps: ServiceDeps,
  stack: StackRecord,
  version: number,
): Promise<UntypedDeployment> {
  if (!Number.isSafeInteger(version) || version < 1 || version > stack.version) throw versionNotFound(stack, version);
  let entry;
  try {
    entry = await deps.storage.updates.getHistory(stack.id, version);
  } catch (error) {
    if (error instanceof NotFoundError) throw versionNotFound(stack, version);
    throw error;
  }
  if (!entry.checkpoint) return minimalDeployment(entry.endedAt ?? entry.createdAt);
  return loadCheckpoint(deps, stack.id, entry.checkpoint);
}

function versionNotFound(stack: StackRecord, version: number): NotFoundError {
  return new NotFoundError(
    `Version ${version} of stack '${stack.org}/${stack.project}/${stack.stack}' not found: the stack is at version ` +
      `${stack.version}; run 'stackyard stack history' to see its versions.`,
  );
}

/**
 * Writes `deployment` as a new immutable stack checkpoint and returns its name. It does not move the stack's
 * pointer: the caller does that in its own conditional stack update (and may retry; each call writes a new object).
 */
export async function writeStackCheckpoint(
  deps: ServiceDeps,
  stack: StackRecord,
  deployment: UntypedDeployment,
): Promise<string> {
  const name = `checkpoints/${String(deps.now()).padStart(13, '0')}-${randomBytes(6).toString('hex')}`;
  await deps.storage.checkpoints.put({ stackId: stack.id, name }, Buffer.from(JSON.stringify(deployment)));
  return name;
}
