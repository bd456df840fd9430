/**
 * Push to deploy through `stackyard serve`: `POST /api/webhooks/git/{org}/{project}/{stack}` signed with the stack's
 * push webhook secret (set in its deployment settings, sealed, never returned) queues exactly one `update` of the
 * pushed commit for a push to the branch the settings follow, a `preview` for a pull request into it, and nothing for
 * a replayed, badly signed, oversized or unrelated delivery; the audit log names the webhook as the initiator.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesContain } from '../support/files-contain.js';
import { failed, ok, PulumiWire } from './pulumi-wire.js';
import { startServe, type ServeProcess } from './serve-process.js';
import { createStack } from './wire-fixtures.js';

const STACK = '/api/stacks/acme/app/dev';
const HOOK = '/api/webhooks/git/acme/app/dev';
const SECRET = 'push-webhook-secret-never-returned';
const SHA = 'a'.repeat(40);

const sign = (body: Buffer, secret = SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
const githubPush = (branch: string, commit: string, files: string[] = ['index.js']) =>
  Buffer.from(JSON.stringify({ ref: `refs/heads/${branch}`, after: commit, commits: [{ added: [], modified: files, removed: [] }] }));

describe('push webhooks through `stackyard serve`', () => {
  let serve: ServeProcess;
  let wire: PulumiWire;
  let delivery = 0;
  const call = (method: string, path: string, body?: object) =>
    wire.call(method, path, { auth: { token: serve.adminToken }, ...(body === undefined ? {} : { body }) });
  const post = (headers: Record<string, string>, body: Buffer) => wire.call('POST', HOOK, { body, headers, gzip: false });
  const github = (event: string, body: Buffer, id = `gh-${++delivery}`, signature = sign(body)) =>
    post({ 'X-GitHub-Event': event, 'X-GitHub-Delivery': id, 'X-Hub-Signature-256': signature }, body);
  const runs = async () => ok(await call('GET', `${STACK}/deployments`)).deployments as { id: string; pulumiOperation: string; initiator: string }[];

  beforeAll(async () => {
    serve = await startServe({ storage: 'local' });
    wire = new PulumiWire(serve.url);
    ok(await call('POST', '/api/orgs', { name: 'acme' }), 201);
    await createStack(wire, serve.adminToken, { org: 'acme', project: 'app', stack: 'dev' });
    ok(
      await call('POST', `${STACK}/deployments/settings`, {
        sourceContext: { git: { repoUrl: 'http://127.0.0.1:9/app.git', branch: 'main' } },
        gitHub: { paths: ['index.js', 'lib/**'] },
        pushWebhook: { secret: { secret: SECRET } },
      }),
    );
  });

  afterAll(async () => {
    wire?.close();
    await serve?.stop();
  });

  it('keeps the secret sealed at rest and out of every answer', async () => {
    const settings = ok(await call('GET', `${STACK}/deployments/settings`));

    expect(settings.pushWebhook).toEqual({ hasSecret: true });
    expect(await filesContain(serve.dataDir, SECRET)).toBe(false);
    // Posting back what was read changes nothing (hasSecret is read-only).
    expect(ok(await call('POST', `${STACK}/deployments/settings`, settings)).pushWebhook).toEqual({ hasSecret: true });
    failed(await call('POST', `${STACK}/deployments/settings`, { pushWebhook: { secret: 'plain-text-secret-value' } }), 400);
    failed(await call('POST', `${STACK}/deployments/settings`, { pushWebhook: { postResults: true } }), 400);
  });

  it('queues exactly one update of the pushed commit for a signed push to the followed branch', async () => {
    const body = githubPush('main', SHA);

    const answer = ok(await github('push', body, 'gh-push-main'), 202);

    expect(answer).toMatchObject({ queued: true, operation: 'update', version: 1 });
    const [run] = await runs();
    expect(run).toMatchObject({ id: answer.deploymentId, pulumiOperation: 'update', initiator: 'webhook:github' });
    expect(await runs()).toHaveLength(1);
  });

  it('refuses a replayed delivery (409) and a badly signed one (401), queueing nothing', async () => {
    const body = githubPush('main', SHA);

    failed(await github('push', body, 'gh-push-main'), 409);
    failed(await github('push', body, 'gh-bad-signature', sign(body, 'not-the-secret-at-all')), 401);
    failed(await github('push', Buffer.concat([body, Buffer.from(' ')]), 'gh-changed-body', sign(body)), 401);
    failed(await post({ 'X-GitHub-Event': 'push', 'X-GitHub-Delivery': 'gh-unsigned' }, body), 401);
    failed(await wire.call('POST', '/api/webhooks/git/acme/app/nosuchstack', { body, gzip: false, headers: { 'X-GitHub-Event': 'push', 'X-GitHub-Delivery': 'x', 'X-Hub-Signature-256': sign(body) } }), 401);
    failed(await github('push', Buffer.alloc(2 * 1024 * 1024 + 1, 32)), 413);

    expect(await runs()).toHaveLength(1);
  });

  it('queues nothing for a push to another branch or outside the path filter, and says why', async () => {
    expect(ok(await github('push', githubPush('feature', SHA)))).toEqual({ queued: false, reason: 'a push to feature, not main' });
    expect(ok(await github('push', githubPush('main', SHA, ['docs/readme.md'])))).toEqual({ queued: false, reason: 'no changed file matches gitHub.paths' });

    expect(await runs()).toHaveLength(1);
  });

  it('queues a preview for a pull request into the branch, and reads GitLab and generic pushes', async () => {
    const pr = Buffer.from(JSON.stringify({ action: 'opened', number: 4, pull_request: { base: { ref: 'main' }, head: { sha: 'b'.repeat(40) } } }));
    expect(ok(await github('pull_request', pr), 202)).toMatchObject({ queued: true, operation: 'preview' });
    const gitlab = githubPush('main', 'c'.repeat(40), ['lib/x.js']);
    expect(ok(await post({ 'X-Gitlab-Event': 'Push Hook', 'X-Gitlab-Event-UUID': 'gl-1', 'X-Gitlab-Token': SECRET }, gitlab), 202)).toMatchObject({ operation: 'update' });
    const generic = Buffer.from(JSON.stringify({ ref: 'refs/heads/main', after: 'd'.repeat(40), paths: ['index.js'] }));
    expect(ok(await post({ 'X-Stackyard-Delivery': 'git-1', 'X-Stackyard-Signature-256': sign(generic) }, generic), 202)).toMatchObject({ operation: 'update' });

    expect((await runs()).map((run) => `${run.pulumiOperation} ${run.initiator}`)).toEqual(['update webhook:git', 'update webhook:gitlab', 'preview webhook:github', 'update webhook:github']);
  });

  it('names the webhook as who queued each run in the audit log', async () => {
    const log = ok(await call('GET', '/api/orgs/acme/auditlogs'));
    const queued = (log.auditLogEvents as { event: string; description: string; user: { githubLogin: string } }[]).filter((e) => e.event === 'deployment.queued');

    expect(queued.map((e) => e.user.githubLogin).sort()).toEqual(['webhook:git', 'webhook:github', 'webhook:github', 'webhook:gitlab']);
    expect(queued.find((e) => e.description.includes('gh-push-main'))?.description).toContain('a GitHub push to main (delivery gh-push-main) queued an update deployment of acme/app/dev at aaaaaaaaaaaa');
  });
});
