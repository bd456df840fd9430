import { createHash } from 'node:crypto';
import { redactSecrets } from '../../esc/index.js';
import { unifiedDiff } from '../../esc/unified-diff.js';
import { TooLargeError } from '../errors.js';
import { requireMember } from '../kernel/authorization.js';
import type { ServiceDeps } from '../kernel/deps.js';
import type { Principal } from '../kernel/principal.js';
import { formatEnvironmentRef, type EnvironmentRef } from '../names.js';
import { loadEnvironment, readableEnvironments } from './environment-access.js';
import { definitionAt } from './evaluation.js';
import { resolveRevision } from './revisions.js';
import type { EnvironmentActivityPage, EnvironmentDiff, EnvironmentOverview, EnvironmentVersion } from './types.js';

/**
 * The longest comparison the service makes, in lines of one revision times lines of the other: the diff is a
 * longest-common-subsequence table of that many cells (4 bytes each), so this bounds one request's memory to 16 MB.
 */
export const MAX_DIFF_CELLS = 4_000_000;

/** A sealed secret as a comparison shows it: its ciphertext's fingerprint, so a changed (or re-sealed) secret differs. */
function sealedLabel(ciphertext: string): string {
  return ciphertext === '' ? '[secret]' : `[secret ${createHash('sha256').update(ciphertext).digest('hex').slice(0, 8)}]`;
}

const lineCount = (text: string) => text.split('\n').length;

/**
 * What the web console reads about environments beyond ESC's routes: an organization's environments with their latest
 * revision and its author, a comparison of two revisions with every secret redacted, and one environment's audit
 * entries. Each needs `read` on the environment: one the caller may not read is not listed, or is not found.
 */
export function createEnvironmentConsoleReads(deps: ServiceDeps) {
  const store = deps.storage.environments;
  return {
    async overview(principal: Principal, org: string, continuationToken?: string): Promise<{ environments: EnvironmentOverview[]; nextToken?: string }> {
      requireMember(principal, org);
      const page = await readableEnvironments(deps, principal, org, continuationToken);
      const readable = page.environments;
      const latest = await Promise.all(readable.map((environment) => store.getRevision(environment.id, environment.revision)));
      return {
        environments: readable.map((environment, index) => ({
          org,
          project: environment.project,
          name: environment.name,
          revision: environment.revision,
          createdAt: environment.createdAt,
          modifiedAt: environment.modifiedAt,
          modifiedBy: latest[index]!.creatorLogin,
        })),
        ...(page.continuationToken ? { nextToken: page.continuationToken } : {}),
      };
    },

    async diff(principal: Principal, ref: EnvironmentRef, from: EnvironmentVersion, to: EnvironmentVersion): Promise<EnvironmentDiff> {
      const environment = await loadEnvironment(deps, principal, ref, 'read');
      const [fromRevision, toRevision] = await Promise.all([resolveRevision(deps, environment, from), resolveRevision(deps, environment, to)]);
      const [before, after] = await Promise.all([definitionAt(deps, environment, fromRevision), definitionAt(deps, environment, toRevision)]);
      if (lineCount(before) * lineCount(after) > MAX_DIFF_CELLS) {
        throw new TooLargeError(
          `Revisions ${fromRevision} and ${toRevision} of '${formatEnvironmentRef(environment)}' are too long to compare here: compare them with 'stackyard env diff'.`,
        );
      }
      const name = formatEnvironmentRef(environment);
      return {
        from: fromRevision,
        to: toRevision,
        diff: unifiedDiff(`${name}@${fromRevision}`, redactSecrets(before, sealedLabel), `${name}@${toRevision}`, redactSecrets(after, sealedLabel)),
      };
    },

    async activity(principal: Principal, ref: EnvironmentRef, page: { limit?: number; continuationToken?: string }): Promise<EnvironmentActivityPage> {
      const environment = await loadEnvironment(deps, principal, ref, 'read');
      // The first page publishes intents of requests that died, as the organization's log does.
      if (page.continuationToken === undefined) await deps.storage.audit.recover(environment.org, deps.now());
      // From its creation on: a deleted environment of the same name had its own entries, which are not this one's.
      const listed = await deps.storage.audit.list({ org: environment.org, target: formatEnvironmentRef(environment), since: environment.createdAt, ...page });
      return {
        entries: listed.entries.map((entry) => ({
          id: entry.id,
          time: entry.time,
          event: entry.event,
          user: entry.actor,
          ...(entry.revision !== undefined ? { revision: entry.revision } : {}),
          description: entry.description,
          ...(entry.outcome ? { outcome: entry.outcome } : {}),
        })),
        ...(listed.continuationToken ? { continuationToken: listed.continuationToken } : {}),
      };
    },
  };
}
