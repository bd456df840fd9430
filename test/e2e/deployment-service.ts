/**
 * A `stackyard serve --runners 1` for the deployment-run tests, with the API calls they make: stacks whose settings
 * deploy a loopback repository's `main` branch, runs queued and awaited, their logs and the state they left.
 */
import { join } from 'node:path';
import { expect } from 'vitest';
import { REPO, until } from '../cli/cli-harness.js';
import { E2eService } from './e2e-harness.js';

/** A run as `GET …/deployments/{id}` shows it. */
export interface RunView {
  id: string;
  status: string;
  failure?: string;
  updates: { updateID: string; version: number }[];
}

/** A resource of an exported stack. */
export interface StateResource {
  urn: string;
  id: string;
  outputs?: Record<string, unknown>;
}

const isEnded = (view: RunView) => view.status === 'succeeded' || view.status === 'failed';

/** serve with one runner worker, and the API calls of the deployment-run tests (stack paths are `/api/stacks/…`). */
export class DeploymentService {
  private constructor(readonly service: E2eService) {}

  /** Starts serve on local storage with `--runners 1` and `env`. */
  static async start(env: Record<string, string>): Promise<DeploymentService> {
    return new DeploymentService(await E2eService.start({ storage: 'local', args: ['--runners', '1'], env }));
  }

  get url(): string {
    return this.service.serve!.url;
  }

  get adminToken(): string {
    return this.service.serve!.adminToken;
  }

  /** `method path` as the administrator; the JSON answer, or an error naming the status. */
  async api(method: string, path: string, body?: unknown): Promise<any> {
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: { authorization: `token ${this.adminToken}`, 'content-type': 'application/json', accept: 'application/vnd.pulumi+8' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  }

  /** `stackyard …` in the service's logged-in sandbox, on stack `org/project/stack`. */
  cli(stack: string, ...args: string[]) {
    return this.service.sandbox.run(this.service.sandbox.root, [...args, '--stack', stack]);
  }

  /** Creates `admin/runapp/<name>` with settings that deploy `repoUrl`'s `main` with the test provider's `world`. */
  async deployableStack(name: string, repoUrl: string, world: string): Promise<void> {
    await this.api('POST', '/api/stacks/admin/runapp', { stackName: name });
    await this.api('POST', `/api/stacks/admin/runapp/${name}/deployments/settings`, {
      sourceContext: { git: { repoUrl, branch: 'main' } },
      operationContext: {
        environmentVariables: { NODE_PATH: join(REPO, 'node_modules'), TESTPROV_WORLD: world, TESTPROV_LOG: join(world, 'provider.log') },
      },
    });
  }

  /** The run `id` of `stack` once it ended (succeeded or failed). */
  endedOn(stack: string, id: string, timeoutMs = 120_000): Promise<RunView> {
    return until(`run ${id} to end`, async () => {
      const view = (await this.api('GET', `${stack}/deployments/${id}`)) as RunView;
      return isEnded(view) ? view : undefined;
    }, timeoutMs);
  }

  /** The lines of the log of run `id` of `stack`, joined. */
  async logOf(stack: string, id: string): Promise<string> {
    return ((await this.api('GET', `${stack}/deployments/${id}/logs`)) as { lines: { line: string }[] }).lines.map((l) => l.line).join('\n');
  }

  /** The resources of `stack`'s state. */
  async resources(stack: string): Promise<StateResource[]> {
    return ((await this.api('GET', `${stack}/export`)) as { deployment: { resources?: StateResource[] } }).deployment.resources ?? [];
  }

  /** Deploys `stack`'s settings with an update run and returns the program's `deployed` resource as the state holds it. */
  async deployed(stack: string): Promise<StateResource> {
    const { id } = (await this.api('POST', `${stack}/deployments`, { operation: 'update' })) as { id: string };
    expect((await this.endedOn(stack, id)).status).toBe('succeeded');
    return (await this.resources(stack)).find((r) => r.urn.endsWith('::deployed'))!;
  }

  /** The first run of `stack` doing `operation`, once there is one. */
  firstRun(stack: string, operation: string, timeoutMs: number) {
    return until(`a ${operation} run of ${stack}`, async () => {
      const { deployments } = (await this.api('GET', `${stack}/deployments`)) as { deployments: { id: string; pulumiOperation: string; created: string; initiator: string }[] };
      return deployments.find((d) => d.pulumiOperation === operation);
    }, timeoutMs);
  }

  stop(): Promise<void> {
    return this.service.stop();
  }
}
