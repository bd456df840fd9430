/**
 * Deployment settings and runs on `stackyard serve`, as the `pulumi` CLI's client calls them
 * (pkg/backend/httpstate/client: PatchStackDeploymentSettings, GetStackDeploymentSettings, CreateDeployment with its
 * X-Pulumi-Deployment-Initiator header, GetDeployment, GetDeploymentLogs): a POST merges, secrets are sealed under the
 * stack's key and never at rest in plaintext, a run is queued with its version, a queued run is cancelled at once, and
 * each change is in the audit log with who made it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesContain } from '../support/files-contain.js';
import { failed, ok, PulumiWire } from './pulumi-wire.js';
import { startServe, type ServeProcess } from './serve-process.js';
import { createStack } from './wire-fixtures.js';

const STACK = '/api/stacks/acme/app/dev';
const SECRET = 'deploy-key-never-at-rest';

describe('deployment settings and runs through `stackyard serve`', () => {
  let serve: ServeProcess;
  let wire: PulumiWire;
  const call = (method: string, path: string, body?: object, headers: Record<string, string> = {}) =>
    wire.call(method, path, { auth: { token: serve.adminToken }, headers, ...(body === undefined ? {} : { body }) });

  beforeAll(async () => {
    serve = await startServe({ storage: 'local' });
    wire = new PulumiWire(serve.url);
    ok(await call('POST', '/api/orgs', { name: 'acme' }), 201);
    await createStack(wire, serve.adminToken, { org: 'acme', project: 'app', stack: 'dev' });
  });

  afterAll(async () => {
    wire?.close();
    await serve?.stop();
  });

  it('merges each settings POST into what is stored and seals secret values', async () => {
    ok(await call('POST', `${STACK}/deployments/settings`, { sourceContext: { git: { repoUrl: 'http://127.0.0.1:9/app.git', branch: 'main' } } }));

    const merged = ok(
      await call('POST', `${STACK}/deployments/settings`, {
        sourceContext: { git: { repoDir: 'infra' } },
        operationContext: { environmentVariables: { REGION: 'eu-west-1', DEPLOY_KEY: { secret: SECRET } } },
      }),
    );

    expect(merged.sourceContext).toEqual({ git: { repoUrl: 'http://127.0.0.1:9/app.git', branch: 'main', repoDir: 'infra' } });
    const read = ok(await call('GET', `${STACK}/deployments/settings`));
    expect(read).toEqual(merged);
    expect(read.operationContext.environmentVariables.REGION).toBe('eu-west-1');
    expect(Object.keys(read.operationContext.environmentVariables.DEPLOY_KEY)).toEqual(['ciphertext']);
    expect(await filesContain(serve.dataDir, SECRET)).toBe(false);
    const sealed = ok(await call('POST', `${STACK}/deployments/settings/encrypt`, { secret: 'another' }));
    ok(await call('POST', `${STACK}/deployments/settings`, { operationContext: { environmentVariables: { OTHER: { ciphertext: sealed.ciphertext } } } }));
    expect(ok(await call('GET', `${STACK}/deployments/settings`)).operationContext.environmentVariables.OTHER).toEqual({ ciphertext: sealed.ciphertext });
  });

  it('refuses settings it could not run, and changes nothing', async () => {
    const before = ok(await call('GET', `${STACK}/deployments/settings`));

    failed(await call('POST', `${STACK}/deployments/settings`, { sourceContext: { git: { branch: 'main', commit: 'abc' } } }), 400);
    failed(await call('POST', `${STACK}/deployments/settings`, { notAField: true }), 400);
    failed(await call('POST', `${STACK}/deployments/settings`, { operationContext: { environmentVariables: { X: { ciphertext: 'bm90IHNlYWxlZA==' } } } }), 400);

    expect(ok(await call('GET', `${STACK}/deployments/settings`))).toEqual(before);
  });

  it('queues runs with their versions, lists them newest first and cancels a queued one at once', async () => {
    const first = ok(await call('POST', `${STACK}/deployments`, { operation: 'update', inheritSettings: true }, { 'X-Pulumi-Deployment-Initiator': 'pulumi-cli' }));
    const second = ok(await call('POST', `${STACK}/deployments`, { operation: 'preview' }));

    expect([first.version, second.version]).toEqual([1, 2]);
    const listed = ok(await call('GET', `${STACK}/deployments`));
    expect(listed.deployments.map((d: { version: number }) => d.version)).toEqual([2, 1]);
    const run = ok(await call('GET', `${STACK}/deployments/${first.id}`));
    expect(run).toMatchObject({ id: first.id, status: 'not-started', pulumiOperation: 'update', initiator: 'pulumi-cli', requestedBy: { githubLogin: 'admin' } });
    const cancelled = ok(await call('POST', `${STACK}/deployments/${first.id}/cancel`));
    expect(cancelled).toMatchObject({ status: 'failed', failure: 'cancelled by admin before it started' });
    failed(await call('POST', `${STACK}/deployments/${first.id}/cancel`), 409);
    expect(ok(await call('GET', `${STACK}/deployments/${first.id}/logs`))).toEqual({ lines: [] });
    const spoofed = ok(await call('POST', `${STACK}/deployments`, { operation: 'preview' }, { 'X-Pulumi-Deployment-Initiator': 'schedule' }));
    expect(ok(await call('GET', `${STACK}/deployments/${spoofed.id}`)).initiator).toBe('api');
    expect(ok(await call('GET', `${STACK}/deployments/${second.id}`)).initiator).toBe('api');
    failed(await call('POST', `${STACK}/deployments`, { operation: 'deploy' }), 400);
    failed(await call('GET', `${STACK}/deployments/00000000-0000-0000-0000-000000000000`), 404);
  });

  it('refuses a run of a stack without a source, saying what to configure', async () => {
    await createStack(wire, serve.adminToken, { org: 'acme', project: 'app', stack: 'bare' });

    const message = failed(await call('POST', '/api/stacks/acme/app/bare/deployments', { operation: 'update' }), 400);

    expect(message).toContain('deployment settings edit --git-url');
  });

  it('records settings changes, runs and cancels in the audit log with who made them', async () => {
    const log = ok(await call('GET', '/api/orgs/acme/auditlogs'));
    const events = (log.auditLogEvents as { event: string; user: { githubLogin: string } }[]).filter((e) => e.event.startsWith('deployment.'));

    expect(events.map((e) => e.event).sort()).toEqual([
      'deployment.cancelled',
      'deployment.queued',
      'deployment.queued',
      'deployment.queued',
      'deployment.settings-changed',
      'deployment.settings-changed',
      'deployment.settings-changed',
    ]);
    expect(new Set(events.map((e) => e.user.githubLogin))).toEqual(new Set(['admin']));
  });
});
