/** The parts of an environment's page: its revision history, a comparison of two revisions, and who opened what. */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { when } from '../format.js';
import type { EnvironmentActivity, EnvironmentRevision } from '../types.js';
import type { Loaded } from '../use-poll.js';
import { VersionSelect } from './version-diff.js';

/** The history: each revision with its tags, author and time; **View** shows that revision's definition above. */
export function RevisionHistory(props: { revisions: EnvironmentRevision[]; shown: number; onView: (revision: number) => void }) {
  return (
    <div class="scroll">
      <table data-testid="environment-history">
        <caption class="sr-only">Revision history</caption>
        <thead>
          <tr>
            <th scope="col">Revision</th>
            <th scope="col">Tags</th>
            <th scope="col">Author</th>
            <th scope="col">Saved</th>
            <th scope="col">
              <span class="sr-only">Definition</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.revisions.map((r) => (
            <tr key={r.number}>
              <th scope="row">{r.number}</th>
              <td>{r.tags.length > 0 ? r.tags.map((t) => <code key={t} class="tag">{t}</code>) : <span class="muted">—</span>}</td>
              <td>{r.creatorLogin}</td>
              <td>{when(Date.parse(r.created))}</td>
              <td>
                {r.number === props.shown ? (
                  <span class="muted">shown</span>
                ) : (
                  <button type="button" class="link" onClick={() => props.onView(r.number)}>
                    View revision {r.number}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const LINE_CLASS: Record<string, string> = { '+': 'added', '-': 'removed', '@': 'hunk' };

/** Two revisions (default: the last two) and the service's unified diff of their definitions, secrets redacted. */
export function CompareRevisions({ base, revisions }: { base: string; revisions: number[] }) {
  const [from, setFrom] = useState(revisions[1] ?? revisions[0] ?? 1);
  const [to, setTo] = useState(revisions[0] ?? 1);
  const [diff, setDiff] = useState<{ from: number; to: number; diff: string } | undefined>();
  const [error, setError] = useState<string | undefined>();
  if (revisions.length < 2) return <p class="muted">One revision so far: nothing to compare.</p>;
  const compare = async () => {
    setError(undefined);
    try {
      setDiff(await api<{ from: number; to: number; diff: string }>(`${base}/diff?from=${from}&to=${to}`));
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const lines = diff?.diff.split('\n').filter((line, index, all) => line !== '' || index < all.length - 1) ?? [];
  return (
    <div data-testid="environment-compare">
      <VersionSelect label="From revision" testId="environment-compare-from" value={from} options={revisions} onChange={setFrom} />{' '}
      <VersionSelect label="to revision" testId="environment-compare-to" value={to} options={revisions} onChange={setTo} />{' '}
      <button type="button" onClick={compare}>
        Compare
      </button>
      {error ? <p role="alert">{error}</p> : null}
      {diff ? (
        <div data-testid="environment-diff" aria-live="polite">
          {lines.length === 0 ? (
            <p class="muted">
              Revisions {diff.from} and {diff.to} have the same definition.
            </p>
          ) : (
            <pre class="yaml diff-text">
              {lines.map((line, index) => (
                <span key={index} class={LINE_CLASS[line.slice(0, line.startsWith('---') || line.startsWith('+++') ? 0 : 1)] ?? ''}>
                  {line}
                  {'\n'}
                </span>
              ))}
            </pre>
          )}
          <p class="muted">Secrets show as a fingerprint of their sealed value: one that changed, or was sealed again by a save, differs.</p>
        </div>
      ) : null}
    </div>
  );
}

const EVENT_TEXT: Record<string, string> = {
  'environment.opened': 'Opened',
  'environment.updated': 'Saved',
  'environment.secrets-revealed': 'Revealed its secrets',
  'environment.tag-changed': 'Changed a tag',
  'environment.permission-changed': 'Changed a permission',
  'environment.deleted': 'Deleted',
  'environment.cloned': 'Cloned',
};

/** Who opened what: the environment's audit entries, newest first (opens, saves, reveals, tags, permissions). */
export function WhoOpenedWhat({ activity }: { activity: Loaded<{ entries: EnvironmentActivity[] }> }) {
  if (activity.error) return <p role="alert">{activity.error.message}</p>;
  if (!activity.data) return <p aria-busy="true">Loading…</p>;
  if (activity.data.entries.length === 0) return <p class="muted">Nobody has opened, saved or revealed it yet.</p>;
  return (
    <div class="scroll">
      <table data-testid="environment-activity">
        <caption class="sr-only">Who opened what</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">What</th>
            <th scope="col">Revision</th>
          </tr>
        </thead>
        <tbody>
          {activity.data.entries.map((e) => (
            <tr key={e.id}>
              <td>{when(e.time)}</td>
              <td>{e.user}</td>
              <td title={e.description}>
                {EVENT_TEXT[e.event] ?? e.event}
                {e.outcome === 'unknown' ? <span class="muted"> (may not have completed)</span> : null}
              </td>
              <td>{e.revision ?? <span class="muted">—</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
