/**
 * The RunnerService of a runner that holds only its run's token (a CodeBuild build): each call is one request to the
 * service's runner routes (functions/http/routes/deployment-runner.ts), so the log still goes through the API and
 * the build needs no access to storage or keys.
 */
import type { ClaimedRun, RunnerService, RunOutcome } from '../../shared/core/deployments/runner-service.js';
import { RunLostError } from '../../shared/core/deployments/runner-service.js';
import type { DeploymentRun } from '../../shared/ports/deployment-store.js';

/** A runner routes' client for one run. */
export interface RemoteRunner {
  /** The run with its source, environment and options, plus the token (what `executeRun` takes). */
  claimed(): Promise<ClaimedRun>;
  service: RunnerService;
}

const REQUEST_TIMEOUT_MS = 30_000;

export function remoteRunner(serviceUrl: string, runId: string, token: string): RemoteRunner {
  const base = `${serviceUrl.replace(/\/+$/, '')}/api/deployments/runner/${encodeURIComponent(runId)}`;

  async function send(method: 'GET' | 'POST', path: string, accept: string, body?: unknown): Promise<Response> {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `token ${token}`, accept, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    if (response.ok) return response;
    const text = await response.text();
    const message = (() => {
      try {
        return String((JSON.parse(text) as { message?: string }).message ?? text);
      } catch {
        return text;
      }
    })();
    // The run ended or changed hands (its token is refused): this runner must stop working on it.
    if (response.status === 401 || response.status === 403) throw new RunLostError(`The service no longer takes this runner's calls for the run: ${message}`);
    throw new Error(`${method} ${path || '/'} answered ${response.status}: ${message.slice(0, 500)}`);
  }

  async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    const text = await (await send(method, path, 'application/json', body)).text();
    return text ? JSON.parse(text) : undefined;
  }

  const service: RunnerService = {
    claimMs: 60_000,
    async recoverLost() {
      return undefined;
    },
    async claim() {
      throw new Error('A remote runner runs the one run it was started for.');
    },
    async heartbeat(_runner, run) {
      const { cancelRequested } = (await call('POST', '/heartbeat')) as { cancelRequested: boolean };
      return { ...run, cancelRequested };
    },
    async log(_run, lines) {
      await call('POST', '/logs', { lines });
    },
    async cancelUpdates() {
      await call('POST', '/cancel-updates');
    },
    async driftFound() {
      return ((await call('POST', '/drift-found')) as { driftFound: boolean }).driftFound;
    },
    async recordRemediation() {
      await call('POST', '/remediation');
    },
    async removeStack() {
      await call('POST', '/remove-stack');
    },
    async declareEnvironments(_runner, _run, names) {
      await call('POST', '/environments', { environments: names });
    },
    async sourceArchive() {
      return new Uint8Array(await (await send('GET', '/source', 'application/gzip')).arrayBuffer());
    },
    async finish(_runner, run: DeploymentRun, outcome: RunOutcome) {
      await call('POST', '/finish', outcome);
      return { ...run, status: outcome.status };
    },
  };

  return {
    async claimed() {
      const brief = (await call('GET', '')) as Omit<ClaimedRun, 'token'>;
      return { ...brief, token };
    },
    service,
  };
}
