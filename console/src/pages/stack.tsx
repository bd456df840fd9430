import { useRef, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { api, stackApi, stackPage } from '../api.js';
import { changes, duration, when } from '../format.js';
import { isSecret, SecretOutput } from '../secrets.js';
import { Value } from '../value.js';
import type { Deployment, LeaseView, StackOverview, UpdateInfo, UpdateSummary } from '../types.js';
import { usePoll } from '../use-poll.js';
import { LoadError } from './not-found.js';
import { AbandonedNote, LeaseBadge, Outcome, Tags } from './parts.js';
import { Plans, type PlanView } from './plans.js';
import { StackTabs } from './stack-tabs.js';
import { CompareVersions } from './version-diff.js';

interface StackData {
  overview: StackOverview;
  history: UpdateInfo[];
  plans: PlanView[];
}

/** `/<org>/<project>/<stack>`: outputs, tags, the lease (with cancel), the history and the update plans; live while an update runs. */
export function StackPage() {
  const { org, project, stack } = useRoute().params as { org: string; project: string; stack: string };
  const base = stackApi(org, project, stack);
  const loaded = usePoll<StackData>(
    async () => {
      const [overview, history, plans] = await Promise.all([
        api<StackOverview>(`/api/console/stacks/${encodeURIComponent(org)}/${encodeURIComponent(project)}/${encodeURIComponent(stack)}`),
        api<{ updates: UpdateInfo[] }>(`${base}/updates?page=1&pageSize=50`),
        api<{ plans: PlanView[] }>(`${base}/plans`),
      ]);
      return { overview, history: history.updates, plans: plans.plans };
    },
    [base],
    // Quick while an update runs; often enough when idle to notice one starting.
    (data) => (data?.overview.lease ? 2000 : 4000),
  );
  if (loaded.error && !loaded.data) return <LoadError error={loaded.error} />;
  if (!loaded.data) return <p aria-busy="true">Loading…</p>;
  const { overview, history, plans } = loaded.data;
  const page = stackPage(org, project, stack);
  // Cancelling and revealing a secret need write; a reader is not offered what the API would refuse.
  const mayWrite = overview.permission !== 'read';
  return (
    <section>
      <StackTabs org={org} project={project} stack={stack} current="Overview" />
      <h1>
        {project}/{stack}
      </h1>
      <p class="muted">
        Version {overview.version} · {overview.resourceCount ?? 0} resources
      </p>
      <div aria-live="polite" data-testid="lease-panel">
        {overview.lease ? (
          <RunningUpdate lease={overview.lease} base={base} page={page} mayCancel={mayWrite} onCancelled={loaded.reload} />
        ) : overview.abandonedUpdate ? (
          <Abandoned update={overview.abandonedUpdate} page={page} />
        ) : (
          <p class="muted">No update is running.</p>
        )}
      </div>
      <h2>Tags</h2>
      <Tags tags={overview.tags} />
      <Outputs base={base} version={overview.version} mayReveal={mayWrite} />
      <h2>History</h2>
      <History history={history} page={page} />
      <CompareVersions base={base} versions={history.filter((u) => u.version !== undefined && !u.dryRun).map((u) => u.version!)} />
      <h2>Update plans</h2>
      <Plans base={base} plans={plans} />
    </section>
  );
}

interface RunningUpdateProps {
  lease: LeaseView;
  base: string;
  page: string;
  mayCancel: boolean;
  onCancelled: () => void;
}

function RunningUpdate({ lease, base, page, mayCancel, onCancelled }: RunningUpdateProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  async function cancel() {
    setBusy(true);
    setError(undefined);
    try {
      await api(`${base}/update/${encodeURIComponent(lease.updateId)}/cancel`, { method: 'POST' });
      dialog.current?.close();
      onCancelled();
    } catch (caught) {
      setError((caught as Error).message);
    } finally {
      setBusy(false);
    }
  }
  return (
    <div class="panel running">
      <p>
        <LeaseBadge lease={lease} /> · <a href={`${page}/updates/${encodeURIComponent(lease.updateId)}`}>Follow its log</a>
      </p>
      {mayCancel && (
        <button type="button" class="danger" onClick={() => dialog.current?.showModal()}>
          Cancel update…
        </button>
      )}
      <dialog ref={dialog} aria-labelledby="cancel-title">
        <h2 id="cancel-title">Cancel this update?</h2>
        <p>
          This stops the {lease.kind ?? 'update'} run by <strong>{lease.holder}</strong> (update {lease.updateId}). Their{' '}
          <code>stackyard</code> stops at its next call; what it saved so far is kept.
        </p>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <div class="actions">
          <button type="button" class="danger" disabled={busy} onClick={() => void cancel()}>
            Cancel {lease.holder}'s update
          </button>
          <button type="button" onClick={() => dialog.current?.close()}>
            Keep it running
          </button>
        </div>
      </dialog>
    </div>
  );
}

function Abandoned({ update, page }: { update: UpdateSummary; page: string }) {
  return (
    <div class="panel" role="status">
      <p>
        No update is running. <Outcome status={update.status} abandoned />{' '}
        <a href={`${page}/updates/${update.version ?? encodeURIComponent(update.updateId)}`}>{update.kind}</a> by{' '}
        <strong>{update.requestedBy}</strong>, started {when(update.startedAt)}.
      </p>
      <AbandonedNote recorded={false} />
    </div>
  );
}

function Outputs({ base, version, mayReveal }: { base: string; version: number; mayReveal: boolean }) {
  const loaded = usePoll(() => api<Deployment>(`${base}/export`), [base, version], () => undefined);
  const root = loaded.data?.deployment.resources?.find((r) => r.type === 'pulumi:pulumi:Stack');
  const outputs = Object.entries(root?.outputs ?? {});
  const anySecret = outputs.some(([, value]) => isSecret(value));
  return (
    <>
      <h2>Outputs</h2>
      {loaded.error ? (
        <LoadError error={loaded.error} />
      ) : !loaded.data ? (
        <p aria-busy="true">Loading…</p>
      ) : outputs.length === 0 ? (
        <p class="muted">No outputs.</p>
      ) : (
        <div data-testid="outputs">
          {anySecret && !mayReveal && (
            <p class="muted" data-testid="secrets-note">
              Secrets stay masked: you have read permission on this stack, and revealing one needs write.
            </p>
          )}
          <dl class="outputs">
            {outputs.map(([name, value]) => (
              <div key={name}>
                <dt>{name}</dt>
                <dd>
                  {isSecret(value) ? <SecretOutput name={name} value={value} stackApiPath={base} mayReveal={mayReveal} /> : <Value value={value} />}
                </dd>
              </div>
            ))}
          </dl>
        </div>
      )}
    </>
  );
}

function History({ history, page }: { history: UpdateInfo[]; page: string }) {
  if (history.length === 0) return <p class="muted">No updates yet.</p>;
  return (
    <div class="scroll">
      <table data-testid="history">
        <caption class="sr-only">Update history, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Kind</th>
            <th scope="col">Started by</th>
            <th scope="col">When</th>
            <th scope="col">Duration</th>
            <th scope="col">Result</th>
            <th scope="col">Changes</th>
            <th scope="col">Message</th>
          </tr>
        </thead>
        <tbody>
          {history.map((u) => (
            <tr key={u.updateID}>
              <th scope="row">
                <a href={`${page}/updates/${u.version ?? encodeURIComponent(u.updateID)}`}>{u.version ?? '—'}</a>
              </th>
              <td>{u.kind}</td>
              <td>{u.requestedBy}</td>
              <td>{when(u.startTime * 1000)}</td>
              <td>{duration(u.startTime * 1000, u.endTime !== undefined ? u.endTime * 1000 : undefined)}</td>
              <td>
                <Outcome status={u.result} cancelledBy={u.cancelledBy} endReason={u.endReason} endMessage={u.endMessage} />
              </td>
              <td>{changes(u.resourceChanges)}</td>
              <td>{u.message || <span class="muted">—</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
