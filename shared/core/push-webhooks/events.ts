/**
 * What a verified push webhook asks for, read from its sender's payload: a push to a branch (with the files its
 * commits touched, when the payload lists them), a pull request opened or moved on (its target branch and head
 * commit), or nothing a stack acts on.
 */
import { InvalidInputError } from '../errors.js';
import type { DeliveryEnvelope } from './signatures.js';

/** A push to a branch. `files` is undefined when the payload does not list what changed. */
export interface PushTrigger {
  kind: 'push';
  branch: string;
  commit: string;
  files?: string[];
}

/** A pull (merge) request opened, reopened or given new commits, into `targetBranch`. */
export interface PullRequestTrigger {
  kind: 'pull-request';
  targetBranch: string;
  commit: string;
  number?: number;
}

/** A delivery no stack acts on (a ping, a tag, a deleted branch, a closed pull request…), and why. */
export interface IgnoredTrigger {
  kind: 'ignored';
  reason: string;
}

/** What a delivery asks for. */
export type Trigger = PushTrigger | PullRequestTrigger | IgnoredTrigger;

type Json = Record<string, unknown>;

const COMMIT = /^[0-9a-f]{7,64}$/;
const NO_COMMIT = /^0+$/;
const BRANCH_REF = 'refs/heads/';

function object(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The files GitHub's and GitLab's push payloads list per commit (added, modified, removed). */
function commitFiles(commits: unknown): string[] | undefined {
  if (!Array.isArray(commits) || commits.length === 0) return undefined;
  const files = new Set<string>();
  for (const commit of commits) {
    for (const key of ['added', 'modified', 'removed']) {
      const list = object(commit)[key];
      if (Array.isArray(list)) for (const file of list) if (typeof file === 'string') files.add(file);
    }
  }
  return [...files];
}

function push(ref: unknown, after: unknown, files: string[] | undefined): Trigger {
  const name = text(ref);
  if (!name?.startsWith(BRANCH_REF)) return { kind: 'ignored', reason: `not a branch push (${String(name ?? 'no ref').slice(0, 100)})` };
  const commit = text(after);
  if (!commit || NO_COMMIT.test(commit)) return { kind: 'ignored', reason: 'the branch was deleted' };
  if (!COMMIT.test(commit)) throw new InvalidInputError('The push names no commit id (after): a hex commit id is expected.');
  return { kind: 'push', branch: name.slice(BRANCH_REF.length), commit, ...(files ? { files } : {}) };
}

function pullRequest(action: string | undefined, acted: readonly string[], targetBranch: unknown, commit: unknown, number: unknown): Trigger {
  if (!action || !acted.includes(action)) return { kind: 'ignored', reason: `pull request ${String(action ?? 'event').slice(0, 40)}: nothing to preview` };
  const target = text(targetBranch);
  const head = text(commit);
  if (!target || !head || !COMMIT.test(head)) throw new InvalidInputError('The pull request names no target branch or head commit.');
  return { kind: 'pull-request', targetBranch: target, commit: head, ...(typeof number === 'number' ? { number } : {}) };
}

function parseJson(body: Buffer): Json {
  try {
    return object(JSON.parse(body.toString('utf8')));
  } catch {
    throw new InvalidInputError('The webhook body is not JSON (send it as application/json).');
  }
}

/** Reads a delivery's payload; an event no stack acts on is `ignored`, a malformed payload an `InvalidInputError`. */
export function readTrigger(envelope: DeliveryEnvelope, body: Buffer): Trigger {
  const payload = parseJson(body);
  switch (envelope.provider) {
    case 'github': {
      if (envelope.event === 'ping') return { kind: 'ignored', reason: 'ping' };
      if (envelope.event === 'push') return push(payload.ref, payload.after, commitFiles(payload.commits));
      if (envelope.event === 'pull_request') {
        const pr = object(payload.pull_request);
        return pullRequest(text(payload.action), ['opened', 'reopened', 'synchronize'], object(pr.base).ref, object(pr.head).sha, payload.number);
      }
      return { kind: 'ignored', reason: `GitHub event ${envelope.event.slice(0, 40)}` };
    }
    case 'gitlab': {
      if (envelope.event === 'Push Hook') return push(payload.ref, payload.after, commitFiles(payload.commits));
      if (envelope.event === 'Merge Request Hook') {
        const mr = object(payload.object_attributes);
        // An `update` without `oldrev` changed the title or labels, not the code: nothing new to preview.
        const action = text(mr.action) === 'update' && mr.oldrev === undefined ? 'edited' : text(mr.action);
        return pullRequest(action, ['open', 'reopen', 'update'], mr.target_branch, object(mr.last_commit).id, mr.iid);
      }
      return { kind: 'ignored', reason: `GitLab event ${envelope.event.slice(0, 40)}` };
    }
    case 'git': {
      const files = payload.paths === undefined ? undefined : payload.paths;
      if (files !== undefined && !(Array.isArray(files) && files.every((file) => typeof file === 'string'))) {
        throw new InvalidInputError('paths must be a list of the files the push changed.');
      }
      return push(payload.ref, payload.after, files as string[] | undefined);
    }
  }
}
