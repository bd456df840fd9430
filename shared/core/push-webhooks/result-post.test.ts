/**
 * A pull request's preview, queued by a signed webhook and run to its end by a runner, posts its result to a loopback
 * stand-in of the git host's API exactly as GitHub's and GitLab's REST APIs take it; nothing is posted when the
 * settings do not ask; a refused post is recorded on the run and in its log and leaves the run as it ended; the
 * token is sealed at rest and never in a log.
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { serviceFixture, type ServiceFixture } from '../../../test/support/service-fixture.js';
import { InvalidInputError } from '../errors.js';
import type { StackRef } from '../names.js';
import { createDeploymentService, type DeploymentService } from '../deployments/deployment-service.js';
import { createRunnerService, type RunnerService } from '../deployments/runner-service.js';
import type { Principal } from '../kernel/principal.js';
import { createUpdateService } from '../updates/update-service.js';
import { createPushWebhookService, type PushWebhookService } from './push-webhook-service.js';

const REF: StackRef = { org: 'acme', project: 'app', stack: 'dev' };
const SECRET = 'pull-request-webhook-secret';
const TOKEN = 'ghp_the-git-hosts-token-never-logged';
const HEAD = 'c0ffee'.padEnd(40, '0');
const RUN_URL = 'https://stackyard.example.com/acme/app/dev/deployments/1';

interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

let receiver: Server;
let apiBase: string;
let received: Received[] = [];
let answer = 201;

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ method: request.method!, path: request.url!, headers: request.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      response.writeHead(answer, { 'content-type': 'application/json' }).end('{"message":"answered"}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  apiBase = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve));
});

let fx: ServiceFixture;
let alice: Principal;
let deployments: DeploymentService;
let webhooks: PushWebhookService;
let runner: RunnerService;

beforeEach(async () => {
  received = [];
  answer = 201;
  fx = await serviceFixture({ serviceUrl: 'https://stackyard.example.com/', hooks: { allowPrivate: true } });
  alice = await fx.user('alice', ['acme'], 'admin');
  await fx.stacks.create(alice, REF);
  deployments = createDeploymentService(fx.deps);
  webhooks = createPushWebhookService(fx.deps);
  runner = createRunnerService(fx.deps);
  await deployments.patchSettings(alice, REF, { sourceContext: { git: { repoUrl: 'http://127.0.0.1:9/app.git', branch: 'main' } }, pushWebhook: { secret: { secret: SECRET } } });
});

afterEach(async () => {
  await fx.close();
});

/** A signed GitHub `pull_request` (#7) or GitLab merge request (!3) event into main at HEAD. */
async function openPullRequest(provider: 'github' | 'gitlab'): Promise<void> {
  if (provider === 'github') {
    const body = Buffer.from(JSON.stringify({ action: 'opened', number: 7, pull_request: { base: { ref: 'main' }, head: { sha: HEAD } } }));
    const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
    await webhooks.receive(REF, { headers: { 'x-github-event': 'pull_request', 'x-github-delivery': 'gh-7', 'x-hub-signature-256': signature }, body });
  } else {
    const body = Buffer.from(JSON.stringify({ object_attributes: { action: 'open', iid: 3, target_branch: 'main', last_commit: { id: HEAD } } }));
    await webhooks.receive(REF, { headers: { 'x-gitlab-event': 'Merge Request Hook', 'x-gitlab-event-uuid': 'gl-3', 'x-gitlab-token': SECRET }, body });
  }
}

/** Claims the queued run, previews with these changes through the run's token, and finishes it. */
async function runPreview(changes: Record<string, number>, outcome: { status: 'succeeded' | 'failed'; failure?: string }) {
  const claimed = (await runner.claim('runner-1'))!;
  const asRun = await fx.identity.authenticate(claimed.token);
  const updates = createUpdateService(fx.deps);
  const { updateId } = await updates.create(asRun, REF, { kind: 'update', dryRun: true });
  const { token } = await updates.start(asRun, REF, updateId, {});
  await updates.recordEvents(REF, updateId, token, [{ sequence: 0, timestamp: 1, summaryEvent: { resourceChanges: changes, durationSeconds: 1, result: outcome.status } }]);
  await updates.complete(REF, updateId, token, outcome.status);
  await runner.finish('runner-1', claimed.run, outcome);
  return deployments.getRun(alice, REF, claimed.run.id);
}

async function logOf(id: string): Promise<string> {
  return (await deployments.readLogs(alice, REF, id, 0, 100)).lines.map((line) => line.line).join('\n');
}

describe('results of pull request previews, posted back', () => {
  it('posts a commit status and a pull request comment to GitHub, as its REST API takes them', async () => {
    await deployments.patchSettings(alice, REF, { gitHub: { repository: 'acme/app' }, pushWebhook: { postResults: { provider: 'github', apiUrl: `${apiBase}/api/v3/`, token: { secret: TOKEN } } } });
    await openPullRequest('github');

    const run = await runPreview({ create: 2, update: 1, same: 3 }, { status: 'succeeded' });

    expect(run.status).toBe('succeeded');
    expect(received.map((r) => `${r.method} ${r.path}`)).toEqual([`POST /api/v3/repos/acme/app/statuses/${HEAD}`, 'POST /api/v3/repos/acme/app/issues/7/comments']);
    for (const request of received) {
      expect(request.headers).toMatchObject({ authorization: `Bearer ${TOKEN}`, accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28', 'content-type': 'application/json' });
    }
    expect(received[0]!.body).toEqual({ state: 'success', target_url: RUN_URL, description: 'Preview passed: 2 to create, 1 to update, 0 to delete, 3 unchanged', context: 'stackyard/preview (acme/app/dev)' });
    expect(received[1]!.body).toEqual({
      body: `**Stackyard preview of \`acme/app/dev\` passed** at c0ffee000000\n\nChanges: 2 to create, 1 to update, 0 to delete, 3 unchanged.\n\n[View the run](${RUN_URL})`,
    });
    expect(run.pullRequest).toEqual({ provider: 'github', number: 7, commit: HEAD });
    expect(run.resultPost).toMatchObject({ status: 'posted', detail: 'posted to GitHub: a commit status on c0ffee000000 and a comment on pull request #7' });
    expect(await logOf(run.id)).toContain('Pull request result: posted to GitHub');
    expect(JSON.stringify(await fx.snapshot())).not.toContain(TOKEN);
  });

  it('posts a note on the GitLab merge request, saying why the preview failed', async () => {
    await deployments.patchSettings(alice, REF, { pushWebhook: { postResults: { provider: 'gitlab', apiUrl: `${apiBase}/api/v4`, repository: 'group/app', token: { secret: TOKEN } } } });
    await openPullRequest('gitlab');

    const run = await runPreview({}, { status: 'failed', failure: 'update failed: the program threw' });

    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ method: 'POST', path: '/api/v4/projects/group%2Fapp/merge_requests/3/notes', headers: { 'private-token': TOKEN } });
    expect(received[0]!.headers.authorization).toBeUndefined();
    expect(received[0]!.body).toEqual({ body: `**Stackyard preview of \`acme/app/dev\` failed** at c0ffee000000\n\nWhy: update failed: the program threw\n\n[View the run](${RUN_URL})` });
    expect(run).toMatchObject({ status: 'failed', resultPost: { status: 'posted' } });
  });

  it('posts nothing when the settings do not ask for it', async () => {
    await openPullRequest('github');

    const run = await runPreview({ create: 1 }, { status: 'succeeded' });

    expect(received).toEqual([]);
    expect(run.pullRequest).toEqual({ provider: 'github', number: 7, commit: HEAD });
    expect(run.resultPost).toBeUndefined();
    expect(await logOf(run.id)).not.toContain('Pull request result');
  });

  it('records a refused post on the run and in its log, leaving the run as it ended, with no token anywhere', async () => {
    answer = 401;
    // A process that does not know the service's URL posts no link (GitHub refuses a relative target_url).
    fx.deps.options.serviceUrl = undefined;
    await deployments.patchSettings(alice, REF, { pushWebhook: { postResults: { provider: 'github', apiUrl: apiBase, repository: 'acme/app', token: { secret: TOKEN } } } });
    await openPullRequest('github');

    const run = await runPreview({ update: 1 }, { status: 'succeeded' });

    expect(received).toHaveLength(1);
    expect(received[0]!.body).toEqual({ state: 'success', description: 'Preview passed: 0 to create, 1 to update, 0 to delete', context: 'stackyard/preview (acme/app/dev)' });
    expect(run.status).toBe('succeeded');
    expect(run.resultPost).toMatchObject({ status: 'failed', detail: `GitHub refused a commit status on c0ffee000000: POST /repos/acme/app/statuses/${HEAD} answered 401` });
    const log = await logOf(run.id);
    expect(log).toContain('Pull request result: failed, GitHub refused a commit status');
    expect(log).not.toContain(TOKEN);
    expect(JSON.stringify(await fx.snapshot())).not.toContain(TOKEN);
  });

  it('refuses settings it could not post with, and keeps the token sealed', async () => {
    const refused = [
      true,
      { provider: 'bitbucket', repository: 'a/b', token: { secret: TOKEN } },
      { provider: 'github', token: { secret: TOKEN } },
      { provider: 'github', repository: 'acme/app' },
      { provider: 'github', repository: 'acme/app', token: { secret: TOKEN }, apiUrl: 'ftp://example.com' },
      { provider: 'gitlab', repository: '../x', token: { secret: TOKEN } },
    ];
    for (const postResults of refused) {
      await expect(deployments.patchSettings(alice, REF, { pushWebhook: { postResults } })).rejects.toBeInstanceOf(InvalidInputError);
    }

    await deployments.patchSettings(alice, REF, { pushWebhook: { postResults: { provider: 'gitlab', repository: '42', token: { secret: TOKEN } } } });

    const settings = await deployments.getSettings(alice, REF);
    expect(Object.keys((settings.pushWebhook as { postResults: { token: object } }).postResults.token)).toEqual(['ciphertext']);
    expect(JSON.stringify(await fx.snapshot())).not.toContain(TOKEN);
  });
});
