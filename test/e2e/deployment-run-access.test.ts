/**
 * What a deployment run may reach (docs/deployments.md, "Git credentials" and "ESC environments"): a private
 * repository — the loopback git server asks HTTP Basic auth; a run whose settings carry the right
 * `gitAuth.accessToken` clones and succeeds, a wrong one fails as `clone failed`, and neither the token nor a URL
 * holding it reaches the run's log, its view or its failure — and the ESC environments its stack imports, which its
 * token may open (and nothing else: another environment is 403, writing one too).
 */
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeSandboxes, REPO, until } from '../cli/cli-harness.js';
import { GitHttpServer } from '../support/git-http-server.js';
import { programFiles } from './run-program.js';
import { E2eService } from './e2e-harness.js';

const TOKEN = 'ghp-loopback-0123456789abcdef';
const STACK = '/api/stacks/admin/runapp/private';

const PROGRAM = `'use strict';
const pulumi = require('@pulumi/pulumi');
const { greeting } = require('greeting');
new pulumi.CustomResource('testprov:index:Thing', 'cloned', { value: greeting() });
`;

/** Reads what the stack's environments gave it, and tries its own token on what they did not. */
const ESC_PROGRAM = `'use strict';
const pulumi = require('@pulumi/pulumi');
const config = new pulumi.Config();
const api = (method, path, body) => fetch(process.env.STACKYARD_BACKEND_URL + '/api/esc/environments/admin/' + path, {
  method,
  headers: { authorization: 'token ' + process.env.STACKYARD_ACCESS_TOKEN, 'content-type': 'application/x-yaml' },
  body,
}).then((response) => response.status);
const probes = Promise.all([api('POST', 'runapp/unrelated/open'), api('PATCH', 'runapp/app-env', 'values: {}')]).then((codes) => codes.join(' '));
new pulumi.CustomResource('testprov:index:Thing', 'configured', {
  value: [config.require('fromEnv'), config.require('fromBase'), process.env.FROM_ENV].join('|'),
  probes,
});
`;

describe('deployment runs of a repository behind credentials', () => {
  let service: E2eService;
  let git: GitHttpServer;
  let repoUrl: string;
  let world: string;

  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${service.serve!.url}${path}`, {
      method,
      headers: { authorization: `token ${service.serve!.adminToken}`, 'content-type': 'application/json', accept: 'application/vnd.pulumi+8' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  const ended = (id: string, stack = STACK) =>
    until(`run ${id} to end`, async () => {
      const view = (await api('GET', `${stack}/deployments/${id}`)) as { status: string; failure?: string };
      return view.status === 'succeeded' || view.status === 'failed' ? view : undefined;
    }, 120_000);
  const logOf = async (id: string, stack = STACK) => ((await api('GET', `${stack}/deployments/${id}/logs`)) as { lines: { line: string }[] }).lines.map((l) => l.line).join('\n');

  beforeAll(async () => {
    git = new GitHttpServer({ basicAuth: { userName: 'git', password: TOKEN } });
    await git.start();
    repoUrl = git.repository('private', {
      main: programFiles(PROGRAM),
      esc: { ...programFiles(ESC_PROGRAM), 'Pulumi.escdev.yaml': 'environment:\n  - runapp/app-env\n' },
    });
    world = mkdtempSync(join(tmpdir(), 'stackyard-world-'));
    service = await E2eService.start({ storage: 'local', args: ['--runners', '1'], env: { STACKYARD_RUNNER_POLL_MS: '200' } });
    await api('POST', '/api/stacks/admin/runapp', { stackName: 'private' });
    await api('POST', `${STACK}/deployments/settings`, {
      sourceContext: { git: { repoUrl, branch: 'main' } },
      operationContext: { environmentVariables: { NODE_PATH: join(REPO, 'node_modules'), TESTPROV_WORLD: world } },
    });
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await git?.stop();
    rmSync(world, { recursive: true, force: true });
    removeSandboxes();
  });

  it('clones with the right access token (stackyard deployment run --git-auth-access-token) and succeeds', async () => {
    const run = await service.sandbox.run(service.sandbox.root, [
      'deployment', 'run', 'update', '--stack', 'admin/runapp/private', '--git-auth-access-token', TOKEN, '--suppress-stream-logs=false',
    ]);

    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/\+ +testprov:index:Thing +cloned +created/);
    const exported = (await api('GET', `${STACK}/export`)) as { deployment: { resources?: { urn: string; outputs?: Record<string, unknown> }[] } };
    expect(exported.deployment.resources?.find((r) => r.urn.endsWith('::cloned'))?.outputs?.value).toBe('hello from the repository');
    const runs = (await api('GET', `${STACK}/deployments`)) as { deployments: { id: string }[] };
    const id = runs.deployments[0]!.id;
    expect(JSON.stringify(await api('GET', `${STACK}/deployments/${id}`))).not.toContain(TOKEN);
    expect(await logOf(id)).not.toContain(TOKEN);
  }, 150_000);

  it('fails a run with a wrong access token as clone failed, the token and its URL in no log', async () => {
    const wrong = 'ghp-wrong-token-fedcba9876543210';
    const refusedBefore = git.refused;
    const { id } = (await api('POST', `${STACK}/deployments`, {
      operation: 'update',
      sourceContext: { git: { gitAuth: { accessToken: { secret: wrong } } } },
    })) as { id: string };

    const done = await ended(id);

    expect(done.status).toBe('failed');
    expect(done.failure).toMatch(/^clone failed: /);
    expect(git.refused).toBeGreaterThan(refusedBefore);
    const log = await logOf(id);
    expect(log).toContain(`$ git clone ${repoUrl} --branch main`);
    for (const text of [log, JSON.stringify(done)]) {
      expect(text).not.toContain(wrong);
      expect(text).not.toContain(TOKEN);
      expect(text).not.toMatch(/\/\/[^/\s]*@127\.0\.0\.1/);
    }
  }, 150_000);

  it("lets a run open the environments its stack imports (and theirs), and no other: the program sees their values", async () => {
    const esc = async (method: string, path: string, body: string | object) => {
      const response = await fetch(`${service.serve!.url}/api/esc/environments/admin${path}`, {
        method,
        headers: { authorization: `token ${service.serve!.adminToken}`, 'content-type': typeof body === 'string' ? 'application/x-yaml' : 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    };
    for (const name of ['base', 'app-env', 'unrelated']) await esc('POST', '', { project: 'runapp', name });
    await esc('PATCH', '/runapp/base', 'values:\n  pulumiConfig:\n    fromBase: base-value\n');
    await esc('PATCH', '/runapp/app-env', 'imports:\n  - runapp/base\nvalues:\n  pulumiConfig:\n    fromEnv: env-value\n  environmentVariables:\n    FROM_ENV: variable-value\n');
    await esc('PATCH', '/runapp/unrelated', 'values:\n  kept: out-of-reach\n');
    const stack = '/api/stacks/admin/runapp/escdev';
    await api('POST', '/api/stacks/admin/runapp', { stackName: 'escdev' });
    await api('POST', `${stack}/deployments/settings`, {
      sourceContext: { git: { repoUrl, branch: 'esc', gitAuth: { accessToken: { secret: TOKEN } } } },
      operationContext: { environmentVariables: { NODE_PATH: join(REPO, 'node_modules'), TESTPROV_WORLD: world } },
    });

    const { id } = (await api('POST', `${stack}/deployments`, { operation: 'update' })) as { id: string };
    const done = await ended(id, stack);

    expect(done.failure).toBeUndefined();
    expect(done.status).toBe('succeeded');
    const exported = (await api('GET', `${stack}/export`)) as { deployment: { resources?: { urn: string; outputs?: Record<string, unknown> }[] } };
    const outputs = exported.deployment.resources?.find((r) => r.urn.endsWith('::configured'))?.outputs;
    expect(outputs?.value).toBe('env-value|base-value|variable-value');
    // The unrelated environment: 403 to open; the imported one: 403 to write (open is all the run may do).
    expect(outputs?.probes).toBe('403 403');
    expect(await logOf(id, stack)).toContain("The stack imports the environments runapp/app-env: the run's token may open them.");
    const audit = (await api('GET', '/api/orgs/admin/auditlogs')) as { auditLogEvents: { event: string; target?: string; description: string; tokenID?: string }[] };
    const opened = audit.auditLogEvents.filter((e) => e.event === 'environment.opened' && e.target === 'admin/runapp/app-env');
    expect(opened.length).toBeGreaterThan(0);
    expect(opened[0]!.description).toContain(`for deployment ${id}`);
    expect(opened[0]!.tokenID).toBe(`run-${id}`);
  }, 150_000);
});
