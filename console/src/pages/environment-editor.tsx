/** The edit box of an environment's page: the latest definition, saved only if nobody saved another meanwhile. */
import { useEffect, useState } from 'preact/hooks';
import { readDefinition, saveDefinition, SaveError, type Diagnostic } from '../api.js';

/** `line:column: summary`, as `stackyard env set` prints a diagnostic (the summary alone when it has no place). */
export function diagnosticText(d: Diagnostic): string {
  return d.range ? `${d.range.begin.line}:${d.range.begin.column}: ${d.summary}` : d.summary;
}

function Diagnostics({ title, diagnostics }: { title: string; diagnostics: Diagnostic[] }) {
  if (diagnostics.length === 0) return null;
  return (
    <div data-testid="editor-diagnostics">
      <p>{title}</p>
      <ul>
        {diagnostics.map((d, index) => (
          <li key={index}>
            <code>{diagnosticText(d)}</code> <span class="muted">({d.severity})</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * Edits the latest revision as stored: sealed secrets stay ciphertext (the box never reveals one), and a new
 * `fn::secret: <value>` is sealed by the service when saved. The save sends the etag of the revision read, so one
 * another save beat is refused (409) and nothing is overwritten; a definition with errors is refused with every
 * diagnostic, shown by line and column.
 */
export function DefinitionEditor(props: { base: string; onSaved: (revision: number, warnings: Diagnostic[]) => void; onCancel: () => void }) {
  const [read, setRead] = useState<{ yaml: string; etag: string } | undefined>();
  const [text, setText] = useState('');
  const [saving, setSaving] = useState(false);
  const [refusal, setRefusal] = useState<{ message: string; diagnostics: Diagnostic[] } | undefined>();
  useEffect(() => {
    readDefinition(props.base)
      .then((definition) => {
        setRead(definition);
        setText(definition.yaml);
      })
      .catch((e: unknown) => setRefusal({ message: (e as Error).message, diagnostics: [] }));
  }, [props.base]);
  const save = async () => {
    setSaving(true);
    setRefusal(undefined);
    try {
      const saved = await saveDefinition(props.base, text, read!.etag);
      props.onSaved(saved.revision, saved.diagnostics);
    } catch (e) {
      setRefusal({ message: (e as Error).message, diagnostics: e instanceof SaveError ? e.diagnostics : [] });
    } finally {
      setSaving(false);
    }
  };
  return (
    <form
      data-testid="environment-editor"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      {!read && !refusal ? <p aria-busy="true">Loading…</p> : null}
      {read ? (
        <>
          <label for="definition-text">Definition (YAML)</label>
          <p class="muted">Sealed secrets stay ciphertext here; write <code>fn::secret: &lt;value&gt;</code> to add one, sealed when saved.</p>
          <textarea id="definition-text" class="yaml" rows={Math.min(30, Math.max(8, text.split('\n').length + 2))} value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} spellcheck={false} />
          <p>
            <button type="submit" disabled={saving}>
              Save
            </button>{' '}
            <button type="button" onClick={props.onCancel} disabled={saving}>
              Cancel
            </button>
          </p>
        </>
      ) : null}
      {refusal ? (
        <div role="alert">
          <p>{refusal.message}</p>
          <Diagnostics title="Nothing was saved:" diagnostics={refusal.diagnostics} />
        </div>
      ) : null}
    </form>
  );
}

/** What the last save gave: its revision, and the warnings it was saved with. */
export function SavedNote({ revision, warnings }: { revision: number; warnings: Diagnostic[] }) {
  return (
    <div role="status" data-testid="editor-saved">
      <p>Saved revision {revision}.</p>
      <Diagnostics title="With warnings:" diagnostics={warnings} />
    </div>
  );
}
