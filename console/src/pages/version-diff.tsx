/** The history's "Compare versions": what changed between any two versions (`GET …/diff`), secrets as `[secret]`. */
import { useState } from 'preact/hooks';
import { api } from '../api.js';

interface PropertyChange {
  path: string[];
  kind: 'add' | 'delete' | 'update';
  old?: unknown;
  new?: unknown;
}

interface ChangedResource {
  urn: string;
  type: string;
  id?: string;
  oldId?: string;
  diffs?: PropertyChange[];
}

interface StateDiff {
  from: number;
  to: number;
  added: ChangedResource[];
  removed: ChangedResource[];
  replaced: ChangedResource[];
  updated: ChangedResource[];
}

const show = (value: unknown) => (value === undefined ? '' : JSON.stringify(value));
const nameOf = (urn: string) => urn.slice(urn.lastIndexOf('::') + 2);

function Changes({ diffs }: { diffs: PropertyChange[] | undefined }) {
  if (!diffs?.length) return null;
  return (
    <ul>
      {diffs.map((d) => (
        <li key={d.path.join('.')}>
          <code>{d.path.join('.')}</code>: {d.kind === 'add' ? `+ ${show(d.new)}` : d.kind === 'delete' ? `- ${show(d.old)}` : `${show(d.old)} → ${show(d.new)}`}
        </li>
      ))}
    </ul>
  );
}

/** A labelled picker of one version (or revision) number. */
export function VersionSelect(props: { label: string; testId: string; value: number; options: number[]; onChange: (v: number) => void }) {
  return (
    <label>
      {props.label}{' '}
      <select data-testid={props.testId} value={props.value} onChange={(e) => props.onChange(Number((e.target as HTMLSelectElement).value))}>
        {props.options.map((v) => <option key={v} value={v}>{v}</option>)}
      </select>
    </label>
  );
}

/** Two version pickers (default: the last two) and the changes between them; nothing about unchanged resources. */
export function CompareVersions({ base, versions }: { base: string; versions: number[] }) {
  const [from, setFrom] = useState(versions[1] ?? 0);
  const [to, setTo] = useState(versions[0] ?? 0);
  const [diff, setDiff] = useState<StateDiff | undefined>();
  const [error, setError] = useState<string | undefined>();
  if (versions.length === 0) return null;
  const options = [...versions, 0];
  const compare = async () => {
    setError(undefined);
    try {
      setDiff(await api<StateDiff>(`${base}/diff?from=${from}&to=${to}`));
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const groups: [string, string, ChangedResource[]][] = diff
    ? [['+', 'added', diff.added], ['+-', 'replaced', diff.replaced], ['~', 'updated', diff.updated], ['-', 'removed', diff.removed]]
    : [];
  return (
    <div data-testid="compare">
      <h3>Compare versions</h3>
      <VersionSelect label="From" testId="compare-from" value={from} options={options} onChange={setFrom} />{' '}
      <VersionSelect label="to" testId="compare-to" value={to} options={options} onChange={setTo} />{' '}
      <button type="button" onClick={compare}>Compare</button>
      {error ? <p role="alert">{error}</p> : null}
      {diff ? (
        <div data-testid="compare-result" aria-live="polite">
          {groups.every(([, , list]) => list.length === 0) ? <p class="muted">No resource changed from version {diff.from} to {diff.to}.</p> : null}
          <ul>
            {groups.flatMap(([mark, what, list]) =>
              list.map((r) => (
                <li key={`${what}:${r.urn}`}>
                  <code>{mark}</code> {r.type} <strong>{nameOf(r.urn)}</strong> ({what}
                  {r.oldId ? `: ${r.oldId} → ${r.id}` : ''})
                  <Changes diffs={r.diffs} />
                </li>
              )),
            )}
          </ul>
        </div>
      ) : null}
    </div>
  );
}
