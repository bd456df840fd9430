import { useEffect, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { api, environmentApi, environmentConsoleApi, readDefinition, type Diagnostic } from '../api.js';
import type { EnvironmentActivity, EnvironmentRevision } from '../types.js';
import { usePoll } from '../use-poll.js';
import { DefinitionEditor, SavedNote } from './environment-editor.js';
import { CompareRevisions, RevisionHistory, WhoOpenedWhat } from './environment-parts.js';
import { LoadError } from './not-found.js';

/** A definition as stored, each sealed secret's ciphertext shown as `[secret]` (the page never shows a ciphertext). */
export function redactCiphertexts(yaml: string): string {
  return yaml.replace(/(ciphertext:[ \t]*)[A-Za-z0-9+/=_-]+/g, '$1[secret]');
}

/**
 * One revision's definition: as stored with secrets redacted, or — after **Show secrets**, which calls the
 * service's reveal (`…/decrypt`: needs `open`, recorded in the audit log) — in plaintext until **Hide secrets**.
 */
function Definition(props: { base: string; revision: number; onRevealed: () => void }) {
  const [stored, setStored] = useState<{ revision: number; yaml: string } | undefined>();
  const [revealed, setRevealed] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    setRevealed(undefined);
    setError(undefined);
    readDefinition(`${props.base}/versions/${props.revision}`)
      .then(({ yaml }) => setStored({ revision: props.revision, yaml }))
      .catch((e: unknown) => setError((e as Error).message));
  }, [props.base, props.revision]);
  const reveal = async () => {
    setError(undefined);
    try {
      setRevealed((await readDefinition(`${props.base}/versions/${props.revision}/decrypt`)).yaml);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      props.onRevealed();
    }
  };
  const current = stored?.revision === props.revision ? stored : undefined;
  const hasSecrets = current !== undefined && /ciphertext:/.test(current.yaml);
  return (
    <div data-testid="environment-definition">
      <p>
        Revision <strong data-testid="definition-revision">{props.revision}</strong>
        {hasSecrets ? (
          revealed === undefined ? (
            <>
              {' '}
              <button type="button" onClick={() => void reveal()}>
                Show secrets
              </button>{' '}
              <span class="muted">needs open on this environment; the reveal is recorded in its audit log</span>
            </>
          ) : (
            <>
              {' '}
              <button type="button" onClick={() => setRevealed(undefined)}>
                Hide secrets
              </button>
            </>
          )
        ) : null}
      </p>
      {error ? <p role="alert">{error}</p> : null}
      {!current ? (
        error ? null : <p aria-busy="true">Loading…</p>
      ) : current.yaml === '' ? (
        <p class="muted">An empty definition.</p>
      ) : (
        <pre class="yaml" data-testid="definition-yaml">
          {revealed ?? redactCiphertexts(current.yaml)}
        </pre>
      )}
    </div>
  );
}

/**
 * `/<org>/esc/<project>/<env>`: an environment's definition (and an edit box for its latest revision), revision
 * history, comparison and who opened what.
 */
export function EnvironmentPage() {
  const { params } = useRoute();
  const { org, project, env } = params as { org: string; project: string; env: string };
  const base = environmentApi(org, project, env);
  const own = environmentConsoleApi(org, project, env);
  const history = usePoll(() => api<EnvironmentRevision[]>(`${base}/versions`), [base], () => 10000);
  const activity = usePoll(() => api<{ entries: EnvironmentActivity[] }>(`${own}/audit?pageSize=100`), [own], () => 5000);
  const [shown, setShown] = useState<number | undefined>();
  const [editing, setEditing] = useState(false);
  const [saved, setSaved] = useState<{ revision: number; warnings: Diagnostic[] } | undefined>();
  if (history.error) return <LoadError error={history.error} />;
  const revisions = history.data ?? [];
  const latest = revisions[0]?.number;
  const onSaved = (revision: number, warnings: Diagnostic[]) => {
    setEditing(false);
    setSaved({ revision, warnings });
    setShown(undefined);
    history.reload();
    activity.reload();
  };
  return (
    <section>
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href={`/${encodeURIComponent(org)}`}>{org}</a> / <a href={`/${encodeURIComponent(org)}/esc`}>environments</a> / {project}
      </nav>
      <h1>
        {project}/{env}
      </h1>
      {latest === undefined ? (
        <p aria-busy="true">Loading…</p>
      ) : (
        <>
          <h2>Definition</h2>
          {saved ? <SavedNote revision={saved.revision} warnings={saved.warnings} /> : null}
          {editing ? (
            <DefinitionEditor base={base} onSaved={onSaved} onCancel={() => setEditing(false)} />
          ) : (
            <>
              <p>
                <button
                  type="button"
                  onClick={() => {
                    setSaved(undefined);
                    setEditing(true);
                  }}
                >
                  Edit the latest revision
                </button>{' '}
                <span class="muted">needs write on this environment</span>
              </p>
              <Definition base={base} revision={shown ?? latest} onRevealed={activity.reload} />
            </>
          )}
          <h2>Revision history</h2>
          <RevisionHistory revisions={revisions} shown={shown ?? latest} onView={setShown} />
          <h2>Compare revisions</h2>
          <CompareRevisions base={own} revisions={revisions.map((r) => r.number)} />
        </>
      )}
      <h2>Who opened what</h2>
      <WhoOpenedWhat activity={activity} />
    </section>
  );
}
