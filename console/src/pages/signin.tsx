import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api } from '../api.js';
import { safeNext } from '../session.js';

/**
 * Sign-in: an access token pasted here (sent in the body, never in the URL, never kept by the page), or the
 * one-time code `stackyard console` puts in the URL fragment, which browsers never send to a server.
 */
export function SignInPage() {
  const location = useLocation();
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const code = new URLSearchParams(window.location.hash.slice(1)).get('code');

  useEffect(() => {
    if (!code) return;
    // Drop the code from the address bar and history at once: it is spent either way.
    window.history.replaceState(null, '', window.location.pathname + window.location.search);
    setBusy(true);
    api<{ next?: string }>('/api/console/sessions', { method: 'POST', body: { code } })
      .then((signedIn) => window.location.replace(safeNext(signedIn.next)))
      .catch((caught: Error) => {
        setBusy(false);
        setError(caught.message);
      });
  }, []);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await api('/api/console/sessions', { method: 'POST', body: { token: token.trim() } });
      setToken('');
      window.location.assign(safeNext(location.query.next));
    } catch (caught) {
      setError((caught as Error).message);
      setBusy(false);
    }
  }

  return (
    <main id="main" class="signin">
      <h1>Sign in to Stackyard</h1>
      {code && busy ? (
        <p aria-busy="true">Signing you in…</p>
      ) : (
        <form onSubmit={(event) => void submit(event)}>
          <label for="token">Access token</label>
          <input
            id="token"
            name="token"
            type="password"
            autoComplete="off"
            spellcheck={false}
            required
            value={token}
            onInput={(event) => setToken((event.target as HTMLInputElement).value)}
            aria-describedby="token-help"
          />
          <p id="token-help" class="help">
            Paste a token from <code>stackyard token create</code> or your administrator. Or run{' '}
            <code>stackyard console</code> to open this console already signed in.
          </p>
          <button type="submit" disabled={busy}>
            Sign in
          </button>
        </form>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </main>
  );
}
