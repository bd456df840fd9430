import { useEffect, useState } from 'preact/hooks';
import { LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { api, ApiError, rememberCsrf, type Session } from './api.js';
import { DeploymentRunPage, DeploymentsPage } from './pages/deployments.js';
import { DriftPage } from './pages/drift.js';
import { EnvironmentPage } from './pages/environment.js';
import { EnvironmentsPage } from './pages/environments.js';
import { HomePage } from './pages/home.js';
import { HooksPage } from './pages/hooks.js';
import { NotFound } from './pages/not-found.js';
import { OrgPage } from './pages/org.js';
import { PoliciesPage } from './pages/policies.js';
import { ResourcesPage } from './pages/resources.js';
import { SignInPage } from './pages/signin.js';
import { StackPage } from './pages/stack.js';
import { UpdatePage } from './pages/update.js';
import { SessionContext } from './session.js';

function SignedIn() {
  const location = useLocation();
  const [session, setSession] = useState<Session | undefined>();
  const [failure, setFailure] = useState<string | undefined>();
  useEffect(() => {
    api<Session>('/api/console/session')
      .then((loaded) => {
        rememberCsrf(loaded.csrfToken);
        setSession(loaded);
      })
      .catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 401) {
          location.route(`/signin?next=${encodeURIComponent(location.url)}`, true);
        } else {
          setFailure((error as Error).message);
        }
      });
  }, []);
  if (failure) return <p role="alert">The console could not load your session: {failure}</p>;
  if (!session) return <p aria-busy="true">Loading…</p>;
  return (
    <SessionContext.Provider value={session}>
      <Header session={session} />
      <main id="main" tabIndex={-1}>
        <Router>
          <Route path="/" component={HomePage} />
          <Route path="/:org" component={OrgPage} />
          <Route path="/:org/settings/hooks" component={HooksPage} />
          <Route path="/:org/esc" component={EnvironmentsPage} />
          <Route path="/:org/settings/policies" component={PoliciesPage} />
          <Route path="/:org/:project" component={OrgPage} />
          <Route path="/:org/:project/:stack" component={StackPage} />
          <Route path="/:org/:project/:stack/resources" component={ResourcesPage} />
          <Route path="/:org/:project/:stack/deployments" component={DeploymentsPage} />
          <Route path="/:org/:project/:stack/deployments/:ref" component={DeploymentRunPage} />
          <Route path="/:org/:project/:stack/drift" component={DriftPage} />
          {/* After the stack pages of four segments: an environment named resources, deployments or drift in a project named esc would be theirs. */}
          <Route path="/:org/esc/:project/:env" component={EnvironmentPage} />
          <Route path="/:org/:project/:stack/updates/:ref" component={UpdatePage} />
          <Route path="/:org/:project/:stack/previews/:ref" component={UpdatePage} />
          <NotFound default />
        </Router>
      </main>
    </SessionContext.Provider>
  );
}

function Header({ session }: { session: Session }) {
  const [signingOut, setSigningOut] = useState(false);
  async function signOut() {
    setSigningOut(true);
    try {
      await api('/api/console/session', { method: 'DELETE' });
    } finally {
      rememberCsrf(undefined);
      // A full load: nothing of the signed-in pages stays in memory.
      window.location.assign('/signin');
    }
  }
  return (
    <header class="top">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <a class="brand" href="/">
        Stackyard
      </a>
      <nav aria-label="Organizations">
        <ul>
          {session.orgs.map((org) => (
            <li key={org.name}>
              <a href={`/${encodeURIComponent(org.name)}`}>{org.name}</a>
            </li>
          ))}
        </ul>
      </nav>
      <span class="who">
        Signed in as <strong data-testid="signed-in-as">{session.login}</strong>
      </span>
      <button type="button" onClick={() => void signOut()} disabled={signingOut}>
        Sign out
      </button>
    </header>
  );
}

function Pages() {
  const { path } = useLocation();
  return path === '/signin' ? <SignInPage /> : <SignedIn />;
}

export function App() {
  return (
    <LocationProvider>
      <Pages />
    </LocationProvider>
  );
}
