import { randomUUID } from 'node:crypto';
import { ConflictError, InvalidInputError, NotFoundError } from '../errors.js';
import { formatStackRef, validateConfigEnvironment, validateStackRef, validateTags, type StackRef } from '../names.js';
import type { StackChanges, StackRecord } from '../../ports/stack-store.js';
import type { UpdateKind } from '../../ports/update-store.js';
import {
  isMember,
  isStaleRevision,
  loadStack,
  requireMember,
  requireNoActiveUpdate,
  requireOrgAction,
  stackNotFound,
  stackPermission,
  type OrgFacts,
} from '../kernel/authorization.js';
import { allows, teamSubject, userSubject, type StackPermission } from '../kernel/permissions.js';
import type { ServiceDeps } from '../kernel/deps.js';
import {
  countResources,
  renameDeployment,
  validateDeployment,
  type PendingOperationSummary,
} from './deployment-rules.js';
import { currentDeployment, deploymentOfVersion, newUpdateId, writeStackCheckpoint } from '../state/stack-state.js';
import { stackEvent } from '../hooks/payloads.js';
import { audited } from '../audit/audit.js';
import type { Principal } from '../kernel/principal.js';
import { changedMeanwhile, removeStack } from './stack-removal.js';
import type { StackPageView, StackService } from './types.js';
import { decodeListToken, encodeListToken, listFilter, type ListPosition } from './stack-list-token.js';

export { STILL_HAS_RESOURCES } from './stack-removal.js';

export const DEFAULT_STACK_PAGE_SIZE = 100;
const MAX_HISTORY_PAGE_SIZE = 100;
/** Tag writes are idempotent, so losing a race to another write of the record is simply retried. */
const MAX_TAG_WRITE_ATTEMPTS = 5;

/**
 * The stack with a crashed update folded in first (see `settleAbandonedUpdate`). Settling, and the journal code it
 * brings, is imported only when there is an update to fold, so listing and reading stacks never load it.
 */
async function settledStack(deps: ServiceDeps, stack: StackRecord): Promise<StackRecord> {
  if (!stack.activeUpdate) return stack;
  const { settleAbandonedUpdate } = await import('../updates/update-records.js');
  return settleAbandonedUpdate(deps, stack);
}

/**
 * Stacks and their stored state outside of updates. Every write of a stack record is conditional on the revision
 * read just before. State written here (import, rename, initial state) is a new immutable checkpoint object written
 * first, then published by one conditional write of the stack record; if that write loses, the object is an
 * unreferenced leftover and nothing visible changed.
 */
export function createStackService(deps: ServiceDeps): StackService {
  const { stacks, updates } = deps.storage;
  const pageSize = deps.options.listPageSize ?? DEFAULT_STACK_PAGE_SIZE;

  /** Records a completed operation of the service itself (import, rename) as an update and a history entry. */
  async function recordOperation(
    principal: Principal,
    stack: StackRecord,
    kind: Extract<UpdateKind, 'import' | 'rename'>,
    checkpoint: string,
    resourceCount: number,
    message?: string,
  ): Promise<string> {
    const now = deps.now();
    const update = await updates.create({
      id: newUpdateId(stack.id),
      stackId: stack.id,
      kind,
      dryRun: false,
      status: 'succeeded',
      requestedBy: principal.login,
      createdAt: now,
      startedAt: now,
      endedAt: now,
      version: stack.version,
      ...(message !== undefined ? { message } : {}),
      environment: {},
      config: {},
      resourceCount,
      checkpoint,
    });
    await updates.recordHistory(update);
    return update.id;
  }

  /** `stack init --teams`: each team must exist; each gets `write`, as Pulumi Cloud gives the teams named there. */
  async function teamGrants(org: string, teams: readonly string[]): Promise<Record<string, StackPermission> | undefined> {
    if (!Array.isArray(teams) || teams.length === 0) return undefined;
    const known = new Set((await deps.storage.identity.listTeams(org)).map((team) => team.name));
    const grants: Record<string, StackPermission> = {};
    for (const team of teams) {
      if (typeof team !== 'string' || !known.has(team)) {
        throw new InvalidInputError(`Team '${String(team).slice(0, 60)}' does not exist in '${org}': create it first, or leave it out of --teams.`);
      }
      grants[teamSubject(team)] = 'write';
    }
    return grants;
  }

  return {
    async create(principal, ref, options = {}) {
      const valid = validateStackRef(ref);
      requireOrgAction(principal, valid.org, 'create-stack');
      const tags = validateTags(options.tags ?? {});
      const grants = await teamGrants(valid.org, options.teams ?? []);
      const initial = options.initialState === undefined ? undefined : validateDeployment(options.initialState);
      const configEnvironment = options.configEnvironment === undefined ? undefined : validateConfigEnvironment(options.configEnvironment);
      const now = deps.now();
      const id = randomUUID();
      // The initial state is written before the stack exists; if the name turns out to be taken it is an orphan
      // object under an id nothing refers to.
      const unborn = { ...valid, id, version: 0, revision: 0, tags, createdAt: now };
      const currentCheckpoint = initial ? await writeStackCheckpoint(deps, unborn, initial.deployment) : undefined;
      try {
        return await audited(deps, principal, { org: valid.org, event: 'stack.created', target: formatStackRef(valid), description: `created stack ${formatStackRef(valid)}` }, () => stacks.create(
          {
            ...valid,
            id,
            tags,
            createdAt: now,
            ...(currentCheckpoint !== undefined ? { currentCheckpoint } : {}),
            ...creatorOf(principal),
            ...(grants ? { grants } : {}),
            ...(configEnvironment !== undefined ? { configEnvironment } : {}),
          },
          [stackEvent('stack_created', { ...valid, id }, principal.login, now)],
        ));
      } catch (error) {
        if (error instanceof ConflictError) {
          throw new ConflictError(
            `Stack '${formatStackRef(valid)}' already exists: choose another name, or select it with ` +
              `'stackyard stack select ${formatStackRef(valid)}'.`,
            { stack: formatStackRef(valid) },
            { cause: error },
          );
        }
        throw error;
      }
    },

    async get(principal, ref) {
      return loadStack(deps, principal, ref, 'view');
    },

    async list(principal, query) {
      const filter = listFilter(query);
      let orgs: string[];
      if (filter.org !== undefined) {
        requireMember(principal, filter.org);
        orgs = [filter.org];
      } else {
        orgs = [...new Set(principal.orgs)].sort();
      }
      let position: ListPosition | undefined =
        query.continuationToken === undefined
          ? orgs.length > 0
            ? { org: orgs[0]! }
            : undefined
          : decodeListToken(query.continuationToken, filter, orgs);

      const page: StackRecord[] = [];
      const facts: OrgFacts = new Map();
      while (position && page.length < pageSize) {
        const result = await stacks.list({
          org: position.org,
          ...(filter.project !== undefined ? { project: filter.project } : {}),
          ...(filter.tagName !== undefined ? { tagName: filter.tagName } : {}),
          ...(filter.tagValue !== undefined ? { tagValue: filter.tagValue } : {}),
          limit: pageSize - page.length,
          ...(position.after !== undefined ? { continuationToken: position.after } : {}),
        });
        for (const stack of result.stacks) {
          if (allows(await stackPermission(deps, principal, stack, facts), 'read')) page.push(stack);
        }
        if (result.continuationToken !== undefined) {
          position = { org: position.org, after: result.continuationToken };
        } else {
          const next = orgs[orgs.indexOf(position.org) + 1];
          position = next === undefined ? undefined : { org: next };
        }
      }
      const view: StackPageView = { stacks: page };
      if (position) view.continuationToken = encodeListToken(position, filter);
      return view;
    },

    async remove(principal, ref, force) {
      await removeStack(deps, principal, await loadStack(deps, principal, ref, 'delete'), { force });
    },

    async rename(principal, ref, to) {
      const loaded = await loadStack(deps, principal, ref, 'rename');
      if (!to || typeof to !== 'object') throw new InvalidInputError('Give the new project and stack name.');
      const target = validateStackRef({ org: loaded.org, project: to.project, stack: to.stack });
      if (target.project === loaded.project && target.stack === loaded.stack) {
        throw new InvalidInputError(`Stack '${formatStackRef(loaded)}' already has that name: choose a different one.`);
      }
      await requireNoActiveUpdate(deps, loaded, 'rename');
      // A crashed update's last state becomes the stack's state first, so it is what gets renamed.
      const stack = await settledStack(deps, loaded);
      const taken = await stacks.get(target).then(
        () => true,
        (error: unknown) => {
          if (error instanceof NotFoundError) return false;
          throw error;
        },
      );
      if (taken) throw nameTaken(target);

      const renamed = renameDeployment(await currentDeployment(deps, stack), stack, target);
      const checkpoint = await writeStackCheckpoint(deps, stack, renamed);
      const resourceCount = countResources(renamed);
      const changes: StackChanges = {
        version: stack.version + 1,
        currentCheckpoint: checkpoint,
        lastUpdate: deps.now(),
        resourceCount,
      };
      if (target.project !== stack.project && stack.tags['pulumi:project'] === stack.project) {
        changes.tags = { ...stack.tags, 'pulumi:project': target.project };
      }
      let result: StackRecord;
      try {
        result = await audited(deps, principal, { org: stack.org, event: 'stack.renamed', target: formatStackRef(stack), description: `renamed stack ${formatStackRef(stack)} to ${formatStackRef(target)}` }, () =>
          stacks.rename(stack.id, stack.revision, target, changes),
        );
      } catch (error) {
        if (isStaleRevision(error)) throw changedMeanwhile(stack, 'renamed', error);
        if (error instanceof ConflictError) throw nameTaken(target, error);
        if (error instanceof NotFoundError) throw stackNotFound(stack);
        throw error;
      }
      await recordOperation(principal, result, 'rename', checkpoint, resourceCount);
      return result;
    },

    async setTags(principal, ref, tags) {
      const valid = validateTags(tags);
      for (let attempt = 1; ; attempt++) {
        const stack = await loadStack(deps, principal, ref, 'tags');
        try {
          await audited(deps, principal, { org: stack.org, event: 'stack.tags-changed', target: formatStackRef(stack), description: `set the tags of ${formatStackRef(stack)}: ${Object.keys(valid).sort().join(', ').slice(0, 500)}` }, () =>
            stacks.update(stack.id, stack.revision, { tags: valid }),
          );
          return;
        } catch (error) {
          if (error instanceof NotFoundError) throw stackNotFound(stack);
          if (!isStaleRevision(error)) throw error;
          if (attempt >= MAX_TAG_WRITE_ATTEMPTS) throw changedMeanwhile(stack, 'tagged', error);
        }
      }
    },

    async setConfigEnvironment(principal, ref, environment) {
      const valid = validateConfigEnvironment(environment);
      for (let attempt = 1; ; attempt++) {
        const stack = await loadStack(deps, principal, ref, 'config');
        try {
          return await audited(deps, principal, { org: stack.org, event: 'stack.config-changed', target: formatStackRef(stack), description: `set the configuration environment of ${formatStackRef(stack)} to ${valid}` }, () =>
            stacks.update(stack.id, stack.revision, { configEnvironment: valid }),
          );
        } catch (error) {
          if (error instanceof NotFoundError) throw stackNotFound(stack);
          if (!isStaleRevision(error)) throw error;
          if (attempt >= MAX_TAG_WRITE_ATTEMPTS) throw changedMeanwhile(stack, 'changed', error);
        }
      }
    },

    async exportDeployment(principal, ref, version) {
      if (version !== undefined && (!Number.isSafeInteger(version) || version < 1)) {
        throw new InvalidInputError(`Invalid version '${String(version)}': versions are whole numbers from 1.`);
      }
      const stack = await loadStack(deps, principal, ref, 'export');
      return version === undefined ? currentDeployment(deps, stack) : deploymentOfVersion(deps, stack, version);
    },

    async importDeployment(principal, ref, deployment) {
      const loaded = await loadStack(deps, principal, ref, 'import');
      const validated = validateDeployment(deployment);
      await requireNoActiveUpdate(deps, loaded, 'import into');
      // A crashed update is recorded (as failed) before the import replaces its state, so history stays complete and
      // no later start can fold that old run over the imported state.
      const stack = await settledStack(deps, loaded);
      const checkpoint = await writeStackCheckpoint(deps, stack, validated.deployment);
      let result: StackRecord;
      try {
        result = await audited(deps, principal, { org: stack.org, event: 'stack.imported', target: formatStackRef(stack), description: `imported a deployment of ${validated.resourceCount} resources into ${formatStackRef(stack)}` }, () =>
          stacks.update(stack.id, stack.revision, {
            version: stack.version + 1,
            currentCheckpoint: checkpoint,
            lastUpdate: deps.now(),
            resourceCount: validated.resourceCount,
          }),
        );
      } catch (error) {
        if (isStaleRevision(error)) throw changedMeanwhile(stack, 'imported into', error);
        if (error instanceof NotFoundError) throw stackNotFound(stack);
        throw error;
      }
      const updateId = await recordOperation(
        principal,
        result,
        'import',
        checkpoint,
        validated.resourceCount,
        pendingOperationsNote(validated.pendingOperations),
      );
      return { updateId };
    },

    async history(principal, ref, page, size) {
      if (!Number.isSafeInteger(page) || page < 1) {
        throw new InvalidInputError('Invalid page: pages are numbered from 1.');
      }
      if (!Number.isSafeInteger(size) || size < 1 || size > MAX_HISTORY_PAGE_SIZE) {
        throw new InvalidInputError(`Invalid page size: use 1 to ${MAX_HISTORY_PAGE_SIZE}.`);
      }
      const stack = await loadStack(deps, principal, ref, 'history');
      return (await updates.listHistory(stack.id, page, size)).updates;
    },

    async latestUpdate(principal, ref) {
      const stack = await loadStack(deps, principal, ref, 'history');
      const [latest] = (await updates.listHistory(stack.id, 1, 1)).updates;
      if (!latest) {
        throw new NotFoundError(`Stack '${formatStackRef(stack)}' has never been updated: run 'stackyard up' first.`);
      }
      return latest;
    },

    async projectExists(principal, org, project) {
      const valid = validateStackRef({ org, project, stack: 'stack' });
      if (!isMember(principal, valid.org)) return false;
      const page = await stacks.list({ org: valid.org, project: valid.project, limit: 1 });
      return page.stacks.length > 0;
    },
  };
}

/** Who a new stack records as its creator (holding `admin` on it): the user, or the team of a team token. */
function creatorOf(principal: Principal): { createdBy?: string } {
  const token = principal.token;
  if (token?.kind === 'organization') return {};
  if (token?.kind === 'team') return token.team ? { createdBy: teamSubject(token.team) } : {};
  return { createdBy: userSubject(principal.login) };
}

function nameTaken(ref: StackRef, cause?: unknown): ConflictError {
  return new ConflictError(
    `Stack '${formatStackRef(ref)}' already exists: choose another name.`,
    { stack: formatStackRef(ref) },
    cause === undefined ? undefined : { cause },
  );
}

function pendingOperationsNote(operations: PendingOperationSummary[]): string | undefined {
  if (operations.length === 0) return undefined;
  const shown = operations.slice(0, 5).map((op) => `${op.type} ${op.urn}`);
  const more = operations.length > shown.length ? ` and ${operations.length - shown.length} more` : '';
  return (
    `The imported state has ${operations.length} pending operation(s): ${shown.join(', ')}${more}. Run ` +
    `'stackyard refresh' to reconcile them.`
  );
}
