import { InvalidInputError, NotFoundError } from '../errors.js';
import type { ServiceDeps } from '../kernel/deps.js';
import type { Principal } from '../kernel/principal.js';
import { formatEnvironmentRef, type EnvironmentRef } from '../names.js';
import { audited } from '../audit/audit.js';
import type { EnvironmentRecord, RevisionTagRecord } from '../../ports/environment-store.js';
import { loadEnvironment } from './environment-access.js';
import type { RevisionTagView, RevisionView } from './types.js';

/** The tag every environment has on its newest revision; it is never stored, so it can never be moved or removed. */
export const LATEST_TAG = 'latest';

/** Revision tag names: not a number (a version starting with a digit is a revision), not a word the routes use. */
const TAG_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,99}$/;
/** `latest` is implicit; the others are words the version routes use after a version. */
const RESERVED_TAGS = new Set([LATEST_TAG, 'tags', 'decrypt', 'open', 'check']);

const MAX_REVISIONS_PAGE = 500;

export function validateTagName(name: unknown): string {
  if (typeof name !== 'string' || !TAG_NAME.test(name)) {
    throw new InvalidInputError(
      `Invalid tag name '${String(name).slice(0, 60)}': use up to 100 letters, digits, '_', '.' or '-', starting with a letter or '_'.`,
    );
  }
  return name;
}

/** The revision a version names: the latest (absent, empty or `latest`), a revision number, or a revision tag. */
export async function resolveRevision(deps: ServiceDeps, environment: EnvironmentRecord, version: string | undefined): Promise<number> {
  if (version === undefined || version === '' || version === LATEST_TAG) return environment.revision;
  const name = formatEnvironmentRef(environment);
  if (/^[0-9]/.test(version)) {
    const number = /^[0-9]{1,12}$/.test(version) ? Number(version) : Number.NaN;
    if (!Number.isSafeInteger(number) || number < 1) throw new InvalidInputError(`Invalid revision '${version.slice(0, 20)}': revisions are numbered from 1.`);
    if (number > environment.revision) throw new NotFoundError(`Environment '${name}' has no revision ${number} (its latest is ${environment.revision}).`);
    return number;
  }
  try {
    return (await deps.storage.environments.getTag(environment.id, validateTagName(version))).revision;
  } catch (error) {
    if (error instanceof NotFoundError) throw new NotFoundError(`Environment '${name}' has no tag '${version}': list its tags with 'esc env version tag ls'.`);
    throw error;
  }
}

/** The revision a tag may point at: one that exists (the latest when absent). */
function targetRevision(environment: EnvironmentRecord, revision: number | undefined): number {
  if (revision === undefined) return environment.revision;
  if (!Number.isSafeInteger(revision) || revision < 1 || revision > environment.revision) {
    throw new NotFoundError(`Environment '${formatEnvironmentRef(environment)}' has no revision ${String(revision).slice(0, 20)} (its latest is ${environment.revision}).`);
  }
  return revision;
}

/** The revision history and tags of environments (`esc env version …`). */
export function createRevisionUseCases(deps: ServiceDeps) {
  const store = deps.storage.environments;
  const latestTag = async (environment: EnvironmentRecord): Promise<RevisionTagView> => {
    const newest = await store.getRevision(environment.id, environment.revision);
    return { name: LATEST_TAG, revision: environment.revision, createdAt: environment.createdAt, modifiedAt: environment.modifiedAt, editorLogin: newest.creatorLogin };
  };
  const tagSpec = (environment: EnvironmentRecord, description: string, revision?: number) =>
    ({ org: environment.org, event: 'environment.tag-changed', target: formatEnvironmentRef(environment), ...(revision ? { revision } : {}), description }) as const;
  const writable = (name: string) => {
    validateTagName(name);
    if (RESERVED_TAGS.has(name)) throw new InvalidInputError(`The tag '${name}' is reserved: choose another name.`);
    return name;
  };

  return {
    async listRevisions(principal: Principal, ref: EnvironmentRef, options: { before?: number; count?: number }): Promise<RevisionView[]> {
      const environment = await loadEnvironment(deps, principal, ref, 'read');
      const count = options.count ?? MAX_REVISIONS_PAGE;
      if (!Number.isSafeInteger(count) || count < 1 || count > MAX_REVISIONS_PAGE) throw new InvalidInputError(`count must be between 1 and ${MAX_REVISIONS_PAGE}.`);
      if (options.before !== undefined && (!Number.isSafeInteger(options.before) || options.before < 0)) throw new InvalidInputError('before must be a revision number.');
      // ESC's client starts its history at `before=0`, meaning from the latest revision.
      const before = options.before === 0 ? undefined : options.before;
      const [revisions, tags] = await Promise.all([store.listRevisions(environment.id, { before, count }), store.listTags(environment.id)]);
      return revisions.map((revision) => ({
        number: revision.number,
        createdAt: revision.createdAt,
        creatorLogin: revision.creatorLogin,
        tags: [...(revision.number === environment.revision ? [LATEST_TAG] : []), ...tags.filter((t) => t.revision === revision.number).map((t) => t.name)],
      }));
    },
    async listRevisionTags(principal: Principal, ref: EnvironmentRef): Promise<RevisionTagView[]> {
      const environment = await loadEnvironment(deps, principal, ref, 'read');
      const tags: RevisionTagRecord[] = await store.listTags(environment.id);
      return [await latestTag(environment), ...tags];
    },
    async getRevisionTag(principal: Principal, ref: EnvironmentRef, name: string): Promise<RevisionTagView> {
      const environment = await loadEnvironment(deps, principal, ref, 'read');
      if (name === LATEST_TAG) return latestTag(environment);
      await resolveRevision(deps, environment, name);
      return store.getTag(environment.id, name);
    },
    async createRevisionTag(principal: Principal, ref: EnvironmentRef, name: string, revision?: number): Promise<void> {
      writable(name);
      const environment = await loadEnvironment(deps, principal, ref, 'write');
      const target = targetRevision(environment, revision);
      const now = deps.now();
      await audited(deps, principal, tagSpec(environment, `tagged revision ${target} of ${formatEnvironmentRef(environment)} '${name}'`, target), () =>
        store.createTag(environment.id, { name, revision: target, createdAt: now, modifiedAt: now, editorLogin: principal.login }),
      );
    },
    async updateRevisionTag(principal: Principal, ref: EnvironmentRef, name: string, revision?: number): Promise<void> {
      writable(name);
      const environment = await loadEnvironment(deps, principal, ref, 'write');
      const target = targetRevision(environment, revision);
      await audited(deps, principal, tagSpec(environment, `moved tag '${name}' of ${formatEnvironmentRef(environment)} to revision ${target}`, target), () =>
        store.updateTag(environment.id, name, target, principal.login, deps.now()),
      );
    },
    async deleteRevisionTag(principal: Principal, ref: EnvironmentRef, name: string): Promise<void> {
      writable(name);
      const environment = await loadEnvironment(deps, principal, ref, 'write');
      await audited(deps, principal, tagSpec(environment, `removed tag '${name}' of ${formatEnvironmentRef(environment)}`), () =>
        store.deleteTag(environment.id, name),
      );
    },
  };
}
