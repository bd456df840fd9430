/**
 * Removing a stack: `stack rm` by a user (stack-service.ts), and a TTL deployment that asked to delete the stack after
 * destroying it (the runner, docs/deployments.md). One conditional delete of the stack record at the revision read,
 * refused while an update holds the stack or (without `force`) while the stack still holds resources.
 */
import { ConflictError, InvalidInputError, NotFoundError } from '../errors.js';
import { formatStackRef, type StackRef } from '../names.js';
import type { StackRecord } from '../../ports/stack-store.js';
import { audited, type AuditActor } from '../audit/audit.js';
import { stackEvent } from '../hooks/payloads.js';
import { isStaleRevision, requireNoActiveUpdate, stackNotFound } from '../kernel/authorization.js';
import type { ServiceDeps } from '../kernel/deps.js';
import type { Principal } from '../kernel/principal.js';
import { currentDeployment } from '../state/stack-state.js';
import { holdsResources } from './deployment-rules.js';

/** Pulumi's words for a stack that still holds resources. */
export const STILL_HAS_RESOURCES = 'Bad Request: Stack still contains resources.';

/** The stack's state changed under us between our read and our conditional write. */
export function changedMeanwhile(stack: StackRef, action: string, cause: unknown): ConflictError {
  return new ConflictError(
    `Stack '${formatStackRef(stack)}' changed while it was being ${action} (another update or command wrote to it): retry the command.`,
    {},
    { cause },
  );
}

/** Deletes `stack` (as loaded, with the caller's right to), audited as `actor`; `why` ends the audit description. */
export async function removeStack(deps: ServiceDeps, actor: Principal | AuditActor, stack: StackRecord, options: { force: boolean; why?: string }): Promise<void> {
  await requireNoActiveUpdate(deps, stack, 'remove');
  if (!options.force && holdsResources(await currentDeployment(deps, stack))) {
    throw new InvalidInputError(STILL_HAS_RESOURCES);
  }
  const name = formatStackRef(stack);
  const description = `deleted stack ${name}${options.force ? ' (--force)' : ''}${options.why ? ` ${options.why}` : ''}`;
  try {
    await audited(deps, actor, { org: stack.org, event: 'stack.deleted', target: name, description }, () =>
      deps.storage.stacks.delete(stack.id, stack.revision, [stackEvent('stack_deleted', stack, actor.login, deps.now())]),
    );
  } catch (error) {
    if (error instanceof NotFoundError) throw stackNotFound(stack);
    if (isStaleRevision(error)) throw changedMeanwhile(stack, 'removed', error);
    throw error;
  }
  // Checkpoint objects are immutable and stay under the old id (no code path deletes objects); nothing can
  // reach them, and the data key went with the stack record, so their secrets cannot be decrypted either.
  await deps.storage.updates.deleteAll(stack.id);
  // The program archives its runs were queued with go with it (their runs' records stay, naming archives now gone).
  await deps.storage.sourceArchives.deleteStackArchives(stack.id);
}
