/**
 * Posts a pull request preview's result back to the git host once its run ends, only when the stack's settings ask
 * for it (`pushWebhook.postResults`, result-settings.ts): on GitHub a commit status on the previewed commit and a pull
 * request comment (REST: `POST /repos/{owner}/{repo}/statuses/{sha}`, `POST /repos/{owner}/{repo}/issues/{n}/comments`),
 * on GitLab a merge request note (`POST /projects/{id}/merge_requests/{iid}/notes`).
 *
 * A post never fails the run: the run is already recorded when this starts, and whatever happens is written to the
 * run's log and to its `resultPost`. The token is opened here, sent only in a request header, and never logged: an
 * error names the request (method and path) and the host's status, not the request's headers or the answer's body.
 * Requests go through the hooks' SSRF guard (transport.ts): a private `apiUrl` needs STACKYARD_HOOKS_ALLOW_PRIVATE.
 */
import { ConflictError, NotFoundError } from '../errors.js';
import { formatStackRef } from '../names.js';
import type { DeploymentRun, RunPullRequest, RunResultPost } from '../../ports/deployment-store.js';
import { privateTargetsAllowed } from '../hooks/ssrf.js';
import { postJson } from '../hooks/transport.js';
import type { ServiceDeps } from '../kernel/deps.js';
import { readSummary } from '../updates/update-records.js';
import { commentBody, statusDescription, type PreviewResult } from './result-message.js';
import { postResultsConfig, type PostResultsConfig } from './result-settings.js';

/** How long one request to the git host may take. */
const POST_TIMEOUT_MS = 10_000;
const HOSTS = { github: 'GitHub', gitlab: 'GitLab' } as const;

/** One request to the git host, and what it is in words. */
interface HostRequest {
  what: string;
  path: string;
  body: Record<string, unknown>;
}

/** The requests that carry `result` to the pull request `pr` on the host of `config`. */
function hostRequests(config: PostResultsConfig, pr: RunPullRequest, result: PreviewResult): HostRequest[] {
  if (config.provider === 'gitlab') {
    return [{ what: `a note on merge request !${pr.number}`, path: `/projects/${encodeURIComponent(config.repository)}/merge_requests/${pr.number}/notes`, body: { body: commentBody(result) } }];
  }
  const repo = config.repository.split('/').map(encodeURIComponent).join('/');
  return [
    {
      what: `a commit status on ${pr.commit.slice(0, 12)}`,
      path: `/repos/${repo}/statuses/${encodeURIComponent(pr.commit)}`,
      body: {
        state: result.passed ? 'success' : 'failure',
        ...(result.runUrl ? { target_url: result.runUrl } : {}),
        description: statusDescription(result),
        context: `stackyard/preview (${result.stack})`,
      },
    },
    { what: `a comment on pull request #${pr.number}`, path: `/repos/${repo}/issues/${pr.number}/comments`, body: { body: commentBody(result) } },
  ];
}

function authHeaders(provider: PostResultsConfig['provider'], token: string): Record<string, string> {
  if (provider === 'gitlab') return { 'private-token': token, 'user-agent': 'stackyard' };
  return { authorization: `Bearer ${token}`, accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28', 'user-agent': 'stackyard' };
}

/** The preview's changes: the summary of the last update the run started (none when it failed before one). */
async function previewResult(deps: ServiceDeps, run: DeploymentRun): Promise<PreviewResult> {
  const last = (await deps.storage.deployments.getRun(run.stackId, run.id))?.updates.at(-1) ?? run.updates.at(-1);
  const changes = last ? ((await readSummary(deps, run.stackId, last.updateId)) ?? {}) : {};
  const stack = formatStackRef({ org: run.org, project: run.project, stack: run.stack });
  // GitHub takes only an absolute target_url; a process that does not know the service's URL (the AWS run launcher
  // recording a lost runner) posts no link rather than a broken one.
  const base = (deps.options.serviceUrl ?? '').replace(/\/+$/, '');
  return {
    stack,
    passed: run.status === 'succeeded',
    changes,
    ...(run.failure ? { failure: run.failure } : {}),
    commit: run.pullRequest!.commit,
    version: run.version,
    ...(/^https?:\/\//.test(base) ? { runUrl: `${base}/${run.org}/${run.project}/${run.stack}/deployments/${run.version}` } : {}),
  };
}

/** Posts `run`'s result when it is a pull request preview and the settings ask for it; never throws. */
export async function postPullRequestResult(deps: ServiceDeps, run: DeploymentRun): Promise<void> {
  if (!run.pullRequest || run.operation !== 'preview') return;
  let outcome: Omit<RunResultPost, 'at'>;
  try {
    const settings = await deps.storage.deployments.getSettings(run.stackId);
    const config = settings && postResultsConfig(settings.settings);
    if (!config) return;
    outcome = await post(deps, run, run.pullRequest, config);
  } catch (error) {
    outcome = { status: 'failed', detail: `the result was not posted: ${(error as Error).message.slice(0, 300)}` };
  }
  await record(deps, run, { ...outcome, at: deps.now() }).catch(() => undefined);
}

async function post(deps: ServiceDeps, run: DeploymentRun, pr: RunPullRequest, config: PostResultsConfig): Promise<Omit<RunResultPost, 'at'>> {
  const host = HOSTS[config.provider];
  if (pr.provider !== config.provider) {
    return { status: 'skipped', detail: `the pull request is on ${HOSTS[pr.provider]}; results are posted to ${host} (pushWebhook.postResults.provider)` };
  }
  const stack = await deps.storage.stacks.getById(run.stackId).catch((error: unknown) => {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  });
  if (!stack) return { status: 'skipped', detail: 'the stack no longer exists' };
  const [opened] = await deps.keys.decryptForStack(stack, [config.sealedToken]);
  const headers = authHeaders(config.provider, Buffer.from(opened!).toString('utf8'));
  const allowPrivate = privateTargetsAllowed(deps.options.hooks);
  const posted: string[] = [];
  for (const request of hostRequests(config, pr, await previewResult(deps, run))) {
    const sent = await postJson(`${config.apiUrl}${request.path}`, JSON.stringify(request.body), headers, { timeoutMs: POST_TIMEOUT_MS, allowPrivate });
    if (!sent.ok) {
      const why = sent.responseCode !== undefined ? `answered ${sent.responseCode}` : (sent.error ?? 'failed');
      const before = posted.length > 0 ? ` (${posted.join(' and ')} posted before it)` : '';
      return { status: 'failed', detail: `${host} refused ${request.what}: POST ${request.path} ${why}${before}` };
    }
    posted.push(request.what);
  }
  return { status: 'posted', detail: `posted to ${host}: ${posted.join(' and ')}` };
}

/** Writes the outcome on the run (conditional on its revision, retried) and a line in its log. */
async function record(deps: ServiceDeps, run: DeploymentRun, resultPost: RunResultPost): Promise<void> {
  const store = deps.storage.deployments;
  await store.appendLog(run.id, [{ timestamp: resultPost.at, line: `Pull request result: ${resultPost.status === 'posted' ? '' : `${resultPost.status}, `}${resultPost.detail}` }]);
  for (;;) {
    const latest = await store.getRun(run.stackId, run.id);
    if (!latest) return;
    try {
      await store.updateRun({ ...latest, resultPost, modified: resultPost.at, revision: latest.revision + 1 }, latest.revision);
      return;
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
    }
  }
}
