import { useRoute } from 'preact-iso';
import { api, ApiError, stackApi, stackPage } from '../api.js';
import { useFollow } from '../use-follow.js';
import { duration, when } from '../format.js';
import { usePoll } from '../use-poll.js';
import { PullRequestRef, ResultPostNote, type RunPullRequest, type RunResultPost } from './deployment-origin.js';
import { LoadError } from './not-found.js';
import { Result } from './parts.js';
import { StackTabs } from './stack-tabs.js';

/** The parts of Pulumi's `GetDeploymentResponse` (plus Stackyard's `failure`, `pullRequest`, `resultPost`) these pages show. */
interface RunView {
  id: string;
  version: number;
  created: string;
  modified: string;
  status: string;
  pulumiOperation: string;
  requestedBy: { name: string };
  initiator: string;
  updates: { updateID: string; version: number }[];
  failure?: string;
  pullRequest?: RunPullRequest;
  resultPost?: RunResultPost;
}

interface LogPage {
  lines: { timestamp: string; line: string }[];
  nextToken?: string;
}

type StackParams = { org: string; project: string; stack: string };

const FINISHED = new Set(['succeeded', 'failed', 'skipped']);
const finishedAt = (run: RunView) => (FINISHED.has(run.status) ? Date.parse(run.modified) : undefined);

/** `/<org>/<project>/<stack>/deployments`: the stack's deployment runs, newest first; live while one is unfinished. */
export function DeploymentsPage() {
  const { org, project, stack } = useRoute().params as StackParams;
  const base = stackApi(org, project, stack);
  const loaded = usePoll(
    () => api<{ deployments: RunView[]; total: number }>(`${base}/deployments?pageSize=50`),
    [base],
    (data) => (data?.deployments.some((run) => !FINISHED.has(run.status)) ? 2000 : 5000),
  );
  const page = stackPage(org, project, stack);
  return (
    <section>
      <StackTabs org={org} project={project} stack={stack} current="Deployments" />
      <h1>Deployments of {project}/{stack}</h1>
      {loaded.error && !loaded.data ? (
        <LoadError error={loaded.error} />
      ) : !loaded.data ? (
        <p aria-busy="true">Loading…</p>
      ) : loaded.data.deployments.length === 0 ? (
        <p class="muted">No deployment runs yet. Queue one with <code>POST …/deployments</code> once the stack has deployment settings.</p>
      ) : (
        <div class="scroll">
          <table data-testid="deployments">
            <caption class="sr-only">Deployment runs, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">Operation</th>
                <th scope="col">Queued by</th>
                <th scope="col">Status</th>
                <th scope="col">Queued</th>
                <th scope="col">Duration</th>
                <th scope="col">Why it failed</th>
                <th scope="col">Pull request</th>
              </tr>
            </thead>
            <tbody>
              {loaded.data.deployments.map((run) => (
                <tr key={run.id}>
                  <th scope="row">
                    <a href={`${page}/deployments/${run.version}`}>{run.version}</a>
                  </th>
                  <td>{run.pulumiOperation}</td>
                  <td>{run.requestedBy.name}</td>
                  <td>
                    <Result status={run.status} />
                  </td>
                  <td>{when(Date.parse(run.created))}</td>
                  <td>{duration(Date.parse(run.created), finishedAt(run))}</td>
                  <td>{run.failure ?? <span class="muted">—</span>}</td>
                  <td data-testid="deployment-row-pull-request">
                    {run.pullRequest ? <PullRequestRef pr={run.pullRequest} /> : <span class="muted">—</span>}
                    {run.resultPost && (
                      <>
                        <br />
                        <ResultPostNote post={run.resultPost} />
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** A run by its version (the console's links) or its id (the API's). */
async function loadRun(base: string, ref: string): Promise<RunView> {
  if (!/^\d+$/.test(ref)) return api<RunView>(`${base}/deployments/${encodeURIComponent(ref)}`);
  const listed = await api<{ deployments: RunView[] }>(`${base}/deployments?pageSize=100`);
  const run = listed.deployments.find((candidate) => candidate.version === Number(ref));
  if (!run) throw new ApiError(404, `Deployment ${ref} is not among the stack's last 100 runs.`);
  return run;
}

/** `/<org>/<project>/<stack>/deployments/<version or id>`: one run and its log, read on while the run goes on. */
export function DeploymentRunPage() {
  const { org, project, stack, ref } = useRoute().params as StackParams & { ref: string };
  const base = stackApi(org, project, stack);
  const { head: run, items: lines, live, error } = useFollow<RunView, LogPage['lines'][number]>(
    (previous) => (previous ? api<RunView>(`${base}/deployments/${encodeURIComponent(previous.id)}`) : loadRun(base, ref)),
    async (current, after) => {
      const query = after !== undefined ? `?continuationToken=${encodeURIComponent(after)}` : '';
      const page = await api<LogPage>(`${base}/deployments/${encodeURIComponent(current.id)}/logs${query}`);
      return { items: page.lines, next: page.nextToken };
    },
    [base, ref],
  );

  if (error && !run) return <LoadError error={error} />;
  if (!run) return <p aria-busy="true">Loading…</p>;
  const page = stackPage(org, project, stack);
  return (
    <section>
      <StackTabs org={org} project={project} stack={stack} current="Deployments" />
      <h1>
        Deployment {run.version} ({run.pulumiOperation})
      </h1>
      <dl class="facts">
        <div>
          <dt>Status</dt>
          <dd data-testid="deployment-status">
            <Result status={run.status} />
            {run.failure && <span data-testid="deployment-failure"> {run.failure}</span>}
          </dd>
        </div>
        <div>
          <dt>Queued by</dt>
          <dd>
            {run.requestedBy.name} ({run.initiator})
          </dd>
        </div>
        {run.pullRequest && (
          <>
            <div>
              <dt>Pull request</dt>
              <dd data-testid="deployment-pull-request">
                <PullRequestRef pr={run.pullRequest} />
              </dd>
            </div>
            <div>
              <dt>Result posted</dt>
              <dd data-testid="deployment-result-post">
                {run.resultPost ? <ResultPostNote post={run.resultPost} /> : <span class="muted">not yet (posted when the preview ends, if the settings ask for it)</span>}
              </dd>
            </div>
          </>
        )}
        <div>
          <dt>Queued</dt>
          <dd>{when(Date.parse(run.created))}</dd>
        </div>
        <div>
          <dt>Finished</dt>
          <dd>{when(finishedAt(run))}</dd>
        </div>
        <div>
          <dt>Updates</dt>
          <dd>
            {run.updates.length === 0 ? (
              <span class="muted">—</span>
            ) : (
              run.updates.map((update, at) => (
                <span key={update.updateID}>
                  {at > 0 && ', '}
                  <a href={`${page}/updates/${update.version || encodeURIComponent(update.updateID)}`}>{update.version || update.updateID}</a>
                </span>
              ))
            )}
          </dd>
        </div>
      </dl>
      {error && (
        <p role="alert" class="error">
          {error.message}
        </p>
      )}
      <h2>Log {live && <span class="badge result-in-progress">live</span>}</h2>
      {lines.length === 0 && !live ? (
        <p class="muted">The run wrote no log.</p>
      ) : (
        <ol class="log" data-testid="deployment-log" aria-live="polite" aria-relevant="additions">
          {lines.map((line, at) => (
            <li key={at} title={line.timestamp}>
              {line.line}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
