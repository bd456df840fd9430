/**
 * `stackyard deployment settings webhook show|set|remove` against serve: the CLI makes a secret (or reads one from
 * stdin), the service keeps it sealed, the printed URL and secret are what a git host's delivery must use, a new secret
 * retires the old, and removing it refuses every delivery.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../api/serve-process.js';
import { ok, PulumiWire } from '../api/pulumi-wire.js';
import { createStack } from '../api/wire-fixtures.js';
import { filesContain } from '../support/files-contain.js';
import { CliSandbox, removeSandboxes } from './cli-harness.js';

const STACK = ['--stack', 'acme/app/dev'];
const PUSH = Buffer.from(JSON.stringify({ ref: 'refs/heads/main', after: 'a'.repeat(40) }));

describe('stackyard deployment settings webhook', () => {
  let serve: ServeProcess;
  let wire: PulumiWire;
  let sandbox: CliSandbox;
  let delivery = 0;
  const cli = (args: string[], input?: string) => sandbox.run(sandbox.root, ['deployment', 'settings', 'webhook', ...args, ...STACK], input === undefined ? {} : { input });
  /** The status a generic delivery signed with `secret` gets at `url`. */
  const deliver = async (url: string, secret: string) => {
    const signature = `sha256=${createHmac('sha256', secret).update(PUSH).digest('hex')}`;
    const answer = await wire.call('POST', new URL(url).pathname, { body: PUSH, gzip: false, headers: { 'X-Stackyard-Delivery': `d-${++delivery}`, 'X-Stackyard-Signature-256': signature } });
    return answer.status;
  };

  beforeAll(async () => {
    serve = await startServe({ storage: 'local' });
    wire = new PulumiWire(serve.url);
    ok(await wire.call('POST', '/api/orgs', { auth: { token: serve.adminToken }, body: { name: 'acme' } }), 201);
    await createStack(wire, serve.adminToken, { org: 'acme', project: 'app', stack: 'dev' });
    sandbox = new CliSandbox();
    const login = await sandbox.run(sandbox.root, ['login', serve.url], { env: { STACKYARD_ACCESS_TOKEN: serve.adminToken } });
    expect(login.status, login.stderr).toBe(0);
  });

  afterAll(async () => {
    wire?.close();
    await serve?.stop();
    removeSandboxes();
  });

  it('makes a secret, prints it once with the URL, and deliveries signed with it verify', async () => {
    const url = `${serve.url}/api/webhooks/git/acme/app/dev`;
    expect((await cli(['show'])).stdout).toBe(
      `Push webhook of 'acme/app/dev': no secret is set (set one with \`stackyard deployment settings webhook set\`)\nURL: ${url}\n` +
        "Pull request previews' results are not posted back (configure it with `stackyard deployment settings webhook post-results`)\n",
    );

    const set = await cli(['set']);

    expect(set.status, set.stderr).toBe(0);
    const secret = /^Secret: ([0-9a-f]{64})$/m.exec(set.stdout)?.[1];
    expect(secret).toBeDefined();
    expect(set.stdout).toContain(`URL: ${url}\n`);
    expect(await filesContain(serve.dataDir, secret!)).toBe(false);
    expect((await cli(['show'])).stdout).not.toContain(secret!);
    expect(JSON.parse((await cli(['show', '-o', 'json'])).stdout)).toEqual({ url, hasSecret: true });
    // Verified (200: the stack follows no branch, so nothing is queued); a wrong secret is 401.
    expect(await deliver(url, secret!)).toBe(200);
    expect(await deliver(url, 'not-the-secret-of-this-stack')).toBe(401);
  });

  it('rotates to a secret read from stdin, never echoing it, and the old one stops verifying', async () => {
    const { url, secret: old } = JSON.parse((await cli(['set', '-o', 'json'])).stdout) as { url: string; secret: string };
    const given = 'given-on-stdin-0123456789';

    const rotated = await cli(['rotate', '--secret-stdin'], `${given}\n`);

    expect(rotated.status, rotated.stderr).toBe(0);
    expect(rotated.stdout).not.toContain(given);
    expect(await deliver(url, given)).toBe(200);
    expect(await deliver(url, old)).toBe(401);
    const short = await cli(['set', '--secret-stdin'], 'too-short');
    expect(short.status).not.toBe(0);
    expect(short.stderr).toContain('at least 16 characters');
    expect(await deliver(url, given)).toBe(200);
  });

  it('removes the secret: every delivery is refused', async () => {
    const given = 'about-to-be-removed-secret';
    await cli(['set', '--secret-stdin'], given);

    const removed = await cli(['remove', '--yes']);

    expect(removed.status, removed.stderr).toBe(0);
    expect(JSON.parse((await cli(['show', '-o', 'json'])).stdout).hasSecret).toBe(false);
    expect(await deliver(`${serve.url}/api/webhooks/git/acme/app/dev`, given)).toBe(401);
  });

  it('configures posting results back with a token read from stdin, sealed, and turns it off', async () => {
    const token = 'glpat-token-of-the-git-host';

    const set = await cli(['post-results', '--provider', 'gitlab', '--repository', 'group/app', '--api-url', 'https://gitlab.example.com/api/v4', '--token-stdin'], token);

    expect(set.status, set.stderr).toBe(0);
    expect(JSON.parse((await cli(['show', '-o', 'json'])).stdout).postResults).toEqual({ provider: 'gitlab', repository: 'group/app', apiUrl: 'https://gitlab.example.com/api/v4' });
    expect((await cli(['show'])).stdout).toContain("Pull request previews' results are posted to GitLab: group/app through https://gitlab.example.com/api/v4\n");
    expect(await filesContain(serve.dataDir, token)).toBe(false);
    const noToken = await cli(['post-results', '--provider', 'github', '--repository', 'acme/app', '--off']);
    expect(noToken.status).not.toBe(0);
    expect((await cli(['post-results', '--off'])).status).toBe(0);
    expect(JSON.parse((await cli(['show', '-o', 'json'])).stdout).postResults).toBeUndefined();
    const refused = await cli(['post-results', '--provider', 'github', '--repository', 'acme/app']);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('pushWebhook.postResults.token');
  });

  it("sets Pulumi's gitHub push settings with deployment settings edit, as pulumi's patch does", async () => {
    const edit = (...args: string[]) => sandbox.run(sandbox.root, ['deployment', 'settings', 'edit', ...args, ...STACK]);

    const edited = await edit('--github-repo', 'acme/app', '--push-to-deploy=false', '--preview-prs', '--path-filter', 'lib/**,index.js', '--path-filter', 'docs');

    expect(edited.status, edited.stderr).toBe(0);
    const settings = JSON.parse((await sandbox.run(sandbox.root, ['deployment', 'settings', 'get', ...STACK])).stdout);
    expect(settings.gitHub).toEqual({ repository: 'acme/app', deployCommits: false, previewPullRequests: true, paths: ['lib/**', 'index.js', 'docs'] });
    const both = await edit('--github-repo', 'acme/app', '--git-url', 'https://example.com/app.git');
    expect(both.status).not.toBe(0);
    expect(both.stderr).toContain('if any flags in the group [github-repo git-url] are set none of the others can be');
    expect((await edit('--pr-template')).stderr).toContain('review stacks are not built yet');
  });
});
