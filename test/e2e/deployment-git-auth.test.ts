/**
 * A deployment run of a private repository (docs/deployments.md, "Git credentials"): the loopback git server asks
 * HTTP Basic auth; a run whose settings carry the right `gitAuth.accessToken` clones and succeeds, a wrong one fails
 * as `clone failed`, and neither the token nor a URL holding it reaches the run's log, its view or its failure.
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
  const ended = (id: string) =>
    until(`run ${id} to end`, async () => {
      const view = (await api('GET', `${STACK}/deployments/${id}`)) as { status: string; failure?: string };
      return view.status === 'succeeded' || view.status === 'failed' ? view : undefined;
    }, 120_000);
  const logOf = async (id: string) => ((await api('GET', `${STACK}/deployments/${id}/logs`)) as { lines: { line: string }[] }).lines.map((l) => l.line).join('\n');

  beforeAll(async () => {
    git = new GitHttpServer({ basicAuth: { userName: 'git', password: TOKEN } });
    await git.start();
    repoUrl = git.repository('private', { main: programFiles(PROGRAM) });
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
});
