import { useRoute } from 'preact-iso';
import { api, stackApi, stackPage } from '../api.js';
import { changes, urnName, when } from '../format.js';
import { usePoll } from '../use-poll.js';
import { LoadError } from './not-found.js';
import { Result } from './parts.js';
import { StackTabs } from './stack-tabs.js';

/** Pulumi's `DriftRunUpdate`: the detecting preview, or the remediating update. */
interface DriftRunUpdate {
  updateId: string;
  status: string;
  resourceChanges?: Record<string, number>;
}

/** Pulumi's `DriftRun` plus Stackyard's `resources` (docs/deployments.md). */
interface DriftRunView {
  id: string;
  driftDetected: boolean;
  created: string;
  status: string;
  deploymentVersion?: number;
  detectUpdate: DriftRunUpdate;
  /** The `up --refresh` a detect-drift run with `remediateIfDriftDetected` ran after finding drift. */
  remediateUpdate?: DriftRunUpdate;
  resources: { urn: string; type: string; change: 'update' | 'delete'; properties: string[] }[];
}

/** Pulumi's `StackDriftStatus`. */
interface DriftStatusView {
  driftDetected: boolean;
  latestDriftRun: string;
  runInProgress: boolean;
}

interface DriftData {
  status: DriftStatusView;
  runs: DriftRunView[];
  total: number;
}

/** `/<org>/<project>/<stack>/drift`: the stack's drift verdict and its drift runs with what drifted, newest first. */
export function DriftPage() {
  const { org, project, stack } = useRoute().params as { org: string; project: string; stack: string };
  const base = stackApi(org, project, stack);
  const loaded = usePoll<DriftData>(
    async () => {
      const [status, runs] = await Promise.all([
        api<DriftStatusView>(`${base}/drift/status`),
        api<{ driftRuns: DriftRunView[]; total: number }>(`${base}/drift/runs?page=1&pageSize=20`),
      ]);
      return { status, runs: runs.driftRuns, total: runs.total };
    },
    [base],
    (data) => (data?.status.runInProgress ? 3000 : 10000),
  );
  const page = stackPage(org, project, stack);
  return (
    <section>
      <StackTabs org={org} project={project} stack={stack} current="Drift" />
      <h1>Drift of {project}/{stack}</h1>
      {loaded.error && !loaded.data ? (
        <LoadError error={loaded.error} />
      ) : !loaded.data ? (
        <p aria-busy="true">Loading…</p>
      ) : (
        <>
          <Verdict status={loaded.data.status} latest={loaded.data.runs[0]} />
          {loaded.data.runs.length > 0 && (
            <>
              <h2>Drift runs</h2>
              <p class="muted">
                The last {loaded.data.runs.length} of {loaded.data.total}.
              </p>
              <ul class="cards" data-testid="drift-runs">
                {loaded.data.runs.map((run) => (
                  <DriftRun key={run.id} run={run} page={page} />
                ))}
              </ul>
            </>
          )}
        </>
      )}
    </section>
  );
}

function Verdict({ status, latest }: { status: DriftStatusView; latest?: DriftRunView }) {
  return (
    <p class="panel" role="status" data-testid="drift-status">
      {!latest
        ? 'No drift run yet. `stackyard refresh --preview-only` (or a detect-drift deployment) checks the stack against its cloud.'
        : status.driftDetected
          ? `Drift detected: the last drift run (${when(Date.parse(latest.created))}) found ${latest.resources.length} resource${latest.resources.length === 1 ? '' : 's'} changed outside Pulumi.`
          : `No drift: the last drift run (${when(Date.parse(latest.created))}) found the stack as Pulumi left it.`}
      {status.runInProgress && ' A detect-drift deployment is queued or running.'}
    </p>
  );
}

function DriftRun({ run, page }: { run: DriftRunView; page: string }) {
  return (
    <li>
      <h3>
        {when(Date.parse(run.created))} · <Result status={run.status} /> · {run.driftDetected ? 'drift detected' : 'no drift'}
      </h3>
      <p class="muted">
        Preview <a href={`${page}/previews/${encodeURIComponent(run.detectUpdate.updateId)}`}>{run.detectUpdate.updateId}</a> ·{' '}
        {changes(run.detectUpdate.resourceChanges)}
        {run.deploymentVersion !== undefined && (
          <>
            {' '}· by <a href={`${page}/deployments/${run.deploymentVersion}`}>deployment {run.deploymentVersion}</a>
          </>
        )}
      </p>
      {run.remediateUpdate && <Remediation update={run.remediateUpdate} page={page} />}
      {run.resources.length > 0 && (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Resource</th>
                <th scope="col">Type</th>
                <th scope="col">Drift</th>
                <th scope="col">Properties</th>
              </tr>
            </thead>
            <tbody>
              {run.resources.map((resource) => (
                <tr key={resource.urn}>
                  <th scope="row" title={resource.urn}>
                    {urnName(resource.urn)}
                  </th>
                  <td>{resource.type}</td>
                  <td>{resource.change === 'delete' ? 'deleted outside Pulumi' : 'changed outside Pulumi'}</td>
                  <td>{resource.properties.length > 0 ? resource.properties.join(', ') : <span class="muted">—</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </li>
  );
}

/** The update that remediated a run's drift: where it is in the history, how it ended, what it changed. */
function Remediation({ update, page }: { update: DriftRunUpdate; page: string }) {
  return (
    <p data-testid="drift-remediation">
      Remediated by update <a href={`${page}/updates/${encodeURIComponent(update.updateId)}`}>{update.updateId}</a> ·{' '}
      <Result status={update.status} /> · {changes(update.resourceChanges)}
    </p>
  );
}
