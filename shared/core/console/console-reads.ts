import { NotFoundError } from '../errors.js';
import { loadStack, requireOrgAction, stackPermission, type OrgFacts } from '../kernel/authorization.js';
import { allows, type StackPermission } from '../kernel/permissions.js';
import type { ServiceDeps } from '../kernel/deps.js';
import type { StackRecord } from '../../ports/stack-store.js';
import type { UpdateRecord } from '../../ports/update-store.js';
import type { ConsoleService, FoundUpdate, StackOverview, UpdateSummary } from './types.js';

/** Event batches are stored as `updates/<id>/events/<first>-<last>-<count>` (see update-service). */
const EVENT_BATCH = /^(\d+)-(\d+)-(\d+)$/;
/** Batches read per call: about 50 events each, so a page stays well inside a Lambda response. */
const MAX_BATCHES_PER_PAGE = 40;
const TERMINAL = new Set(['succeeded', 'failed', 'cancelled']);

export function updateSummary(update: UpdateRecord): UpdateSummary {
  return {
    updateId: update.id,
    kind: update.kind,
    status: update.status,
    requestedBy: update.requestedBy,
    ...(update.version !== undefined ? { version: update.version } : {}),
    ...(update.cancelledBy !== undefined ? { cancelledBy: update.cancelledBy } : {}),
    ...(update.endReason !== undefined ? { endReason: update.endReason } : {}),
    ...(update.startedAt !== undefined ? { startedAt: update.startedAt } : {}),
    ...(update.endedAt !== undefined ? { endedAt: update.endedAt } : {}),
    ...(update.message !== undefined ? { message: update.message } : {}),
    ...(update.resourceChanges !== undefined ? { resourceChanges: update.resourceChanges } : {}),
  };
}

function updateNotFound(stack: StackRecord, ref: string): NotFoundError {
  return new NotFoundError(
    `Update '${ref.slice(0, 140)}' of stack '${stack.org}/${stack.project}/${stack.stack}' not found: open the stack's ` +
      'history to see its updates.',
  );
}

/** The console's reads: stack rows with their last update and lease, updates by version, recorded events. */
export function createConsoleReads(deps: ServiceDeps): Pick<ConsoleService, 'orgStacks' | 'stackOverview' | 'findUpdate' | 'updateEvents'> {
  const { storage } = deps;

  async function overview(stack: StackRecord, permission: StackPermission): Promise<StackOverview> {
    const [history, lease] = await Promise.all([storage.updates.listHistory(stack.id, 1, 1), storage.leases.current(stack.id)]);
    const running = lease ? await storage.updates.get(stack.id, lease.updateId).catch(() => undefined) : undefined;
    const abandoned =
      stack.activeUpdate && lease?.updateId !== stack.activeUpdate
        ? await storage.updates.get(stack.id, stack.activeUpdate).catch(() => undefined)
        : undefined;
    const last = history.updates[0];
    return {
      org: stack.org,
      project: stack.project,
      stack: stack.stack,
      tags: stack.tags,
      version: stack.version,
      permission,
      ...(stack.resourceCount !== undefined ? { resourceCount: stack.resourceCount } : {}),
      ...(last ? { lastUpdate: updateSummary(last) } : {}),
      ...(lease
        ? {
            lease: {
              updateId: lease.updateId,
              holder: lease.holder,
              since: lease.startedAt,
              expiresAt: lease.expiresAt,
              ...(running ? { kind: running.kind } : {}),
            },
          }
        : {}),
      ...(abandoned && !TERMINAL.has(abandoned.status) ? { abandonedUpdate: updateSummary(abandoned) } : {}),
    };
  }

  /**
   * Whether `update` is the stack's running update on record while its lease is gone: its client stopped without
   * ending it, and no start has recorded it yet. Reading changes nothing; the next start records it as failed.
   */
  async function abandoned(stack: StackRecord, update: UpdateRecord): Promise<boolean> {
    if (TERMINAL.has(update.status) || update.dryRun || stack.activeUpdate !== update.id) return false;
    return (await storage.leases.current(stack.id))?.updateId !== update.id;
  }

  /** The update with `abandoned` set when it is. */
  async function found(stack: StackRecord, update: UpdateRecord): Promise<FoundUpdate> {
    return (await abandoned(stack, update)) ? { ...update, abandoned: true } : update;
  }

  async function updateIn(stack: StackRecord, updateId: string): Promise<UpdateRecord> {
    try {
      return await storage.updates.get(stack.id, updateId);
    } catch (error) {
      if (error instanceof NotFoundError || (error instanceof Error && 'status' in error && error.status === 400)) {
        throw updateNotFound(stack, updateId);
      }
      throw error;
    }
  }

  return {
    async orgStacks(principal, org) {
      requireOrgAction(principal, org, 'list-stacks');
      const stacks: { stack: StackRecord; permission: StackPermission }[] = [];
      const facts: OrgFacts = new Map();
      let continuationToken: string | undefined;
      do {
        const page = await storage.stacks.list({ org, continuationToken });
        for (const stack of page.stacks) {
          // The same rule as `stack ls`: a stack the caller may not read is not listed.
          const permission = await stackPermission(deps, principal, stack, facts);
          if (permission !== undefined && allows(permission, 'read')) stacks.push({ stack, permission });
        }
        continuationToken = page.continuationToken;
      } while (continuationToken);
      return Promise.all(stacks.map(({ stack, permission }) => overview(stack, permission)));
    },

    async stackOverview(principal, ref) {
      const stack = await loadStack(deps, principal, ref, 'view');
      // loadStack has checked read; the page needs the exact level to offer only what the caller may do.
      return overview(stack, (await stackPermission(deps, principal, stack))!);
    },

    async findUpdate(principal, ref, versionOrId) {
      const stack = await loadStack(deps, principal, ref, 'history');
      if (!/^[0-9]{1,9}$/.test(versionOrId)) {
        const update = await updateIn(stack, versionOrId);
        if (update.stackId !== stack.id) throw updateNotFound(stack, versionOrId);
        return found(stack, update);
      }
      const version = Number(versionOrId);
      try {
        return await storage.updates.getHistory(stack.id, version);
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
      }
      // A running update gets the next version when it ends; its page has that address from the start.
      if (stack.activeUpdate && version === stack.version + 1) {
        const running = await updateIn(stack, stack.activeUpdate);
        if (running.version !== undefined && running.version !== version) throw updateNotFound(stack, versionOrId);
        return found(stack, running);
      }
      throw updateNotFound(stack, versionOrId);
    },

    async updateEvents(principal, ref, updateId, after = -1) {
      const stack = await loadStack(deps, principal, ref, 'history');
      // Read the status first: clients post every event before `complete`, so an ended update's list is final.
      const update = await updateIn(stack, updateId);
      // An abandoned update's client is gone: no event will come any more.
      const ended = TERMINAL.has(update.status) || (await abandoned(stack, update));
      const prefix = `updates/${update.id}/events/`;
      const batches = (await storage.checkpoints.list(stack.id, prefix))
        .map((name) => ({ name, match: EVENT_BATCH.exec(name.slice(prefix.length)) }))
        .filter((batch) => batch.match && Number(batch.match[2]) > after)
        .sort((a, b) => Number(a.match![1]) - Number(b.match![1]));
      const read = batches.slice(0, MAX_BATCHES_PER_PAGE);
      const bodies = await Promise.all(read.map((batch) => storage.checkpoints.get({ stackId: stack.id, name: batch.name })));
      const events = bodies
        .flatMap((body) => JSON.parse(Buffer.from(body).toString('utf8')) as { sequence: number }[])
        .filter((event) => event.sequence > after)
        .sort((a, b) => a.sequence - b.sequence);
      const last = events.length > 0 ? events[events.length - 1]!.sequence : after >= 0 ? after : undefined;
      return { events, ...(last !== undefined ? { last } : {}), done: ended && read.length === batches.length };
    },
  };
}
