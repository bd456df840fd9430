/**
 * Writing a stack's state from its own past or from another backend's history, outside of any update: rollback to
 * an earlier version, and history entries carried over by `stackyard migrate`. Both publish a new version with one
 * conditional write of the stack record (on the revision read just before) after the state object is written, and
 * both are refused while an update holds the stack's lease, exactly like import.
 */
import { ConflictError, InvalidInputError, NotFoundError } from '../errors.js';
import { formatStackRef } from '../names.js';
import type { StackRecord } from '../../ports/stack-store.js';
import type { UpdateKind } from '../../ports/update-store.js';
import { audited } from '../audit/audit.js';
import { isStaleRevision, loadStack, requireNoActiveUpdate, stackNotFound } from '../kernel/authorization.js';
import type { ServiceDeps } from '../kernel/deps.js';
import { renameDeployment, validateDeployment } from './deployment-rules.js';
import { deploymentOfVersion, newUpdateId, writeStackCheckpoint } from '../state/stack-state.js';
import type { CarriedHistoryEntry, StackRestoreService } from './types.js';
import type { Principal } from '../kernel/principal.js';
import { settleAbandonedUpdate } from '../updates/update-records.js';
import type { StackRef } from '../names.js';

const ROOT_STACK_URN = /^urn:pulumi:([^:]+)::([^:]+)::pulumi:pulumi:Stack::/;
const HISTORY_KINDS: readonly UpdateKind[] = ['update', 'refresh', 'destroy', 'import', 'rename', 'resource-import'];

export function createStackRestoreService(deps: ServiceDeps): StackRestoreService {
  const { stacks, updates } = deps.storage;

  /** Publishes `checkpoint` as version `stack.version + 1`; a lost race is a conflict that says to retry. */
  async function publish(stack: StackRecord, checkpoint: string | undefined, resourceCount: number, action: string): Promise<StackRecord> {
    try {
      return await stacks.update(stack.id, stack.revision, {
        version: stack.version + 1,
        currentCheckpoint: checkpoint ?? null,
        lastUpdate: deps.now(),
        resourceCount,
      });
    } catch (error) {
      if (isStaleRevision(error)) {
        throw new ConflictError(
          `Stack '${formatStackRef(stack)}' changed while it was being ${action} (another update or command wrote to it): retry the command.`,
          {},
          { cause: error },
        );
      }
      if (error instanceof NotFoundError) throw stackNotFound(stack);
      throw error;
    }
  }

  /** Loads the stack for a state change: no update may hold it, and a crashed one is settled first. */
  async function writableStack(principal: Principal, ref: StackRef, action: string): Promise<StackRecord> {
    const loaded = await loadStack(deps, principal, ref, 'restore');
    await requireNoActiveUpdate(deps, loaded, action);
    return settleAbandonedUpdate(deps, loaded);
  }

  return {
    async rollback(principal, ref, version) {
      if (!Number.isSafeInteger(version) || version < 1) {
        throw new InvalidInputError(`Invalid version '${String(version)}': versions are whole numbers from 1.`);
      }
      const stack = await writableStack(principal, ref, 'roll back');
      let state = await deploymentOfVersion(deps, stack, version);
      // A version from before a rename names the old stack in its URNs; it is restored under the current name.
      const root = (state.deployment.resources as { urn?: unknown }[] | undefined)?.find((r) => typeof r?.urn === 'string' && ROOT_STACK_URN.test(r.urn));
      const named = root ? ROOT_STACK_URN.exec(root.urn as string) : null;
      if (named && (named[1] !== stack.stack || named[2] !== stack.project)) {
        state = renameDeployment(state, { org: stack.org, project: named[2]!, stack: named[1]! }, stack);
      }
      const validated = validateDeployment(state);
      const checkpoint = await writeStackCheckpoint(deps, stack, validated.deployment);
      const published = await audited(deps, principal, { org: stack.org, event: 'stack.rolled-back', target: formatStackRef(stack), description: `rolled ${formatStackRef(stack)} back to version ${version}` }, () =>
        publish(stack, checkpoint, validated.resourceCount, 'rolled back'),
      );
      const now = deps.now();
      const update = await updates.create({
        id: newUpdateId(stack.id),
        stackId: stack.id,
        kind: 'import',
        dryRun: false,
        status: 'succeeded',
        requestedBy: principal.login,
        createdAt: now,
        startedAt: now,
        endedAt: now,
        version: published.version,
        message: `Rollback to version ${version}`,
        environment: { 'stackyard:rollbackTo': String(version) },
        config: {},
        resourceCount: validated.resourceCount,
        checkpoint,
      });
      await updates.recordHistory(update);
      return { updateId: update.id, version: published.version };
    },

    async appendHistory(principal, ref, entry) {
      checkEntry(entry);
      const stack = await writableStack(principal, ref, 'add history to');
      if (entry.version !== stack.version + 1) {
        throw new ConflictError(
          `Stack '${formatStackRef(stack)}' is at version ${stack.version}; history entry ${entry.version} cannot follow ` +
            `it. Carried-over history must be added in order, starting at the stack's next version.`,
          { version: stack.version },
        );
      }
      const validated = entry.deployment === undefined ? undefined : validateDeployment(entry.deployment);
      const checkpoint = validated ? await writeStackCheckpoint(deps, stack, validated.deployment) : undefined;
      const resourceCount = validated?.resourceCount ?? 0;
      const published = await audited(deps, principal, { org: stack.org, event: 'stack.history-added', target: formatStackRef(stack), description: `added carried-over history version ${entry.version} to ${formatStackRef(stack)}` }, () =>
        publish(stack, checkpoint, resourceCount, 'given history'),
      );
      const update = await updates.create({
        id: newUpdateId(stack.id),
        stackId: stack.id,
        kind: entry.kind,
        dryRun: false,
        status: entry.result,
        requestedBy: principal.login,
        createdAt: entry.startedAt,
        startedAt: entry.startedAt,
        endedAt: entry.endedAt,
        version: published.version,
        ...(entry.message ? { message: entry.message } : {}),
        environment: entry.environment,
        config: entry.config,
        ...(entry.resourceChanges ? { resourceChanges: entry.resourceChanges } : {}),
        resourceCount,
        ...(checkpoint ? { checkpoint } : {}),
      });
      await updates.recordHistory(update);
      return { updateId: update.id };
    },
  };
}

function checkEntry(entry: CarriedHistoryEntry): void {
  const fail = (what: string) => new InvalidInputError(`Invalid history entry: ${what}.`);
  if (!Number.isSafeInteger(entry.version) || entry.version < 1) throw fail('"version" must be a whole number from 1');
  if (!HISTORY_KINDS.includes(entry.kind)) throw fail(`"kind" must be one of ${HISTORY_KINDS.join(', ')}`);
  if (entry.result !== 'succeeded' && entry.result !== 'failed') throw fail('"result" must be succeeded or failed');
  if (!Number.isSafeInteger(entry.startedAt) || !Number.isSafeInteger(entry.endedAt) || entry.endedAt < entry.startedAt) {
    throw fail('"startTime" and "endTime" must be epoch seconds, the end not before the start');
  }
  const isStringMap = (value: unknown) =>
    value !== null && typeof value === 'object' && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string');
  if (!isStringMap(entry.environment)) throw fail('"environment" must map names to strings');
  if (entry.config === null || typeof entry.config !== 'object' || Array.isArray(entry.config)) throw fail('"config" must be an object');
}
