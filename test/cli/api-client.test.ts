/** The HTTP client against a real node:http server: headers, gzip bodies, Pulumi's error decoding, retries. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../cli/api-client/api-client.js';
import { ApiError } from '../../cli/api-client/api-error.js';
import { HttpBackend } from '../../cli/backend/http-backend.js';
import { JournalEntryKind } from '../../shared/core/journal/types.js';
import { renderError } from '../../cli/output/errors.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

let server: Server | undefined;

/** Serves `answer` for every request and records what arrived. */
async function serve(answer: (req: Seen, n: number, res: ServerResponse) => void): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) };
      seen.push(entry);
      answer(entry, seen.length, res);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, seen };
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

const noSleep = async () => undefined;

afterEach(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

describe('ApiClient', () => {
  it('sends the Pulumi headers and a gzip body where asked, with the API token', async () => {
    const { url, seen } = await serve((_req, _n, res) => json(res, 200, { ciphertexts: ['Yw=='] }));
    const client = new ApiClient(url, 'sy_token');

    const answer = await client.request({ method: 'POST', path: '/api/stacks/o/p/s/batch-encrypt', body: { plaintexts: ['cA=='] }, gzip: true });

    expect(answer).toEqual({ ciphertexts: ['Yw=='] });
    expect(seen[0]!.url).toBe('/api/stacks/o/p/s/batch-encrypt');
    expect(seen[0]!.headers).toMatchObject({
      authorization: 'token sy_token',
      accept: 'application/vnd.pulumi+9',
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    });
    expect(JSON.parse(gunzipSync(seen[0]!.body).toString('utf8'))).toEqual({ plaintexts: ['cA=='] });
  });

  it('uses the lease token for update calls and leaves out empty query values', async () => {
    const { url, seen } = await serve((_req, _n, res) => json(res, 200, {}));
    const client = new ApiClient(url, 'sy_token');

    await client.request({ method: 'POST', path: '/api/x', updateToken: 'lease-1', query: { force: false, page: 2, login: undefined } });

    expect(seen[0]!.headers.authorization).toBe('update-token lease-1');
    expect(seen[0]!.url).toBe('/api/x?force=false&page=2');
    expect(seen[0]!.headers['content-encoding']).toBeUndefined();
  });

  it("takes the status from the body's code, as the Pulumi CLI does", async () => {
    const { url } = await serve((_req, _n, res) => json(res, 400, { code: 409, message: 'Conflict: Another update is currently in progress.' }, { 'x-pulumi-request-id': 'req-9' }));
    const client = new ApiClient(url, 't');

    const error = await client.request({ method: 'POST', path: '/api/s/update/u', operation: 'start update' }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 409, message: 'Conflict: Another update is currently in progress.', requestId: 'req-9', operation: 'start update' });
  });

  it('keeps the HTTP status and raw text of a body that is not JSON', async () => {
    const { url } = await serve((_req, _n, res) => {
      res.writeHead(502);
      res.end('  bad gateway  ');
    });

    const error = await new ApiClient(url, 't', { attempts: 1 }).request({ method: 'GET', path: '/api/user' }).catch((e: unknown) => e);

    expect(error).toMatchObject({ status: 502, message: 'bad gateway' });
  });

  it('retries a GET after a 5xx, but not a POST that is not idempotent', async () => {
    const { url, seen } = await serve((_req, n, res) => (n === 1 || n === 3 ? json(res, 503, { code: 503, message: 'busy' }) : json(res, 200, { ok: n })));
    const client = new ApiClient(url, 't', { sleep: noSleep });

    const retried = await client.request({ method: 'GET', path: '/api/user' });
    const failed = await client.request({ method: 'POST', path: '/api/stacks/o/p' }).catch((e: unknown) => e);

    expect(retried).toEqual({ ok: 2 });
    expect(failed).toMatchObject({ status: 503 });
    expect(seen).toHaveLength(3);
  });

  it('waits what Retry-After says (plus jitter) on a 503 of an update-token save, and says what it waits for', async () => {
    const { url, seen } = await serve((_req, n, res) =>
      n <= 2 ? json(res, 503, { code: 503, message: 'DynamoDB is unavailable' }, { 'retry-after': '3' }) : json(res, 200, {}),
    );
    const waits: number[] = [];
    const notices: string[] = [];
    const client = new ApiClient(url, 't', { sleep: async (ms) => void waits.push(ms), notify: (m) => notices.push(m), random: () => 0.5 });

    await client.request({ method: 'PATCH', path: '/api/x/checkpoint', updateToken: 'u', idempotent: true, operation: 'save checkpoint' });

    expect(seen).toHaveLength(3);
    expect(waits).toEqual([3250, 3250]);
    expect(notices[0]).toMatch(/answered 503 \(DynamoDB is unavailable\); retrying save checkpoint in 3\.3 s \(attempt 2 of at most 10/);
  });

  it('backs off with jitter when there is no Retry-After, and gives up once the retry budget is spent', async () => {
    const { url, seen } = await serve((_req, _n, res) => json(res, 503, { code: 503, message: 'down' }));
    const waits: number[] = [];
    const client = new ApiClient(url, 't', { sleep: async (ms) => void waits.push(ms), notify: () => undefined, random: () => 0, retryBudgetMs: 3_000 });

    const error = await client.request({ method: 'GET', path: '/api/user' }).catch((e: unknown) => e);

    expect(error).toMatchObject({ status: 503 });
    expect(waits).toEqual([250, 500, 1000]);
    expect(seen).toHaveLength(4);
  });

  it('reports an unreachable service as status 0 with the URL', async () => {
    const { url } = await serve(() => undefined);
    await new Promise((resolve) => server!.close(resolve));
    server = undefined;

    const error = await new ApiClient(url, 't', { sleep: noSleep }).request({ method: 'GET', path: '/api/user' }).catch((e: unknown) => e);

    expect(error).toMatchObject({ status: 0 });
    expect((error as Error).message).toContain(`cannot reach ${url.replace(/\/$/, '')}`);
  });
});

describe('rendering service errors', () => {
  const render = (error: unknown) => {
    let text = '';
    const code = renderError(error, { write: (t: string) => ((text += t), true) } as unknown as NodeJS.WritableStream);
    return { code, text };
  };

  it('turns a 401 into one line and the login step', () => {
    expect(render(new ApiError(401, 'The access token is not valid.'))).toEqual({
      code: 1,
      text: 'error: [401] The access token is not valid.\n  Run `stackyard login <url>` with a valid access token (or set STACKYARD_ACCESS_TOKEN).\n',
    });
  });

  it('suggests `stackyard cancel` for a conflicting start, unless the message already does', () => {
    expect(render(new ApiError(409, 'Conflict: update u1 by alice holds the stack', undefined, 'start update')).text).toContain('run `stackyard cancel`');
    expect(render(new ApiError(409, "Conflict: … or run 'stackyard cancel'", undefined, 'start update')).text).toBe(
      "error: [409] Conflict: … or run 'stackyard cancel'\n",
    );
  });

  it('names the request id of a server error', () => {
    expect(render(new ApiError(500, 'Internal server error', 'req-7')).text).toContain('give the request id (req-7) to your administrator');
  });
});

describe('journal entries over HTTP', () => {
  it('sends one gzip PATCH per batch with the lease token, and splits a batch the service refuses as too large (413)', async () => {
    // The stand-in service takes at most 2 entries per request, as a size cap would.
    const { url, seen } = await serve((req, _n, res) => {
      const { entries } = JSON.parse(gunzipSync(req.body).toString('utf8')) as { entries: unknown[] };
      if (entries.length > 2) json(res, 413, { code: 413, message: 'Request body too large' });
      else json(res, 200, {});
    });
    const backend = new HttpBackend(new ApiClient(url, 'sy_token', { sleep: noSleep }));
    const entries = [1, 2, 3, 4, 5].map((sequenceID) => ({ version: 1, kind: JournalEntryKind.Outputs, sequenceID, operationID: sequenceID, removeOld: null, removeNew: null }));

    await backend.appendJournalEntries({ org: 'acme', project: 'web', stack: 'dev' }, 'u1', 'lease-1', entries);

    const sent = seen.map((r) => (JSON.parse(gunzipSync(r.body).toString('utf8')) as { entries: { sequenceID: number }[] }).entries.map((e) => e.sequenceID));
    expect(seen.every((r) => r.method === 'PATCH' && r.url === '/api/stacks/acme/web/dev/update/u1/journalentries')).toBe(true);
    expect(seen.every((r) => r.headers.authorization === 'update-token lease-1' && r.headers['content-encoding'] === 'gzip')).toBe(true);
    expect(sent).toEqual([[1, 2, 3, 4, 5], [1, 2, 3], [1, 2], [3], [4, 5]]);
  });
});

describe('the default organization', () => {
  it.each([
    [{ GitHubLogin: 'acme' }, 'acme'],
    [{ gitHubLogin: 'acme' }, 'acme'],
    [{ githubLogin: 'acme' }, 'acme'],
    [{ GITHUBLOGIN: 'acme', githublogin: 'last-wins' }, 'last-wins'],
  ])('is read from %j whatever the case of its key, as Go decodes JSON', async (answer, org) => {
    const { url } = await serve((req, _n, res) => json(res, 200, req.url === '/api/user/organizations/default' ? answer : { githubLogin: 'me' }));
    const backend = new HttpBackend(new ApiClient(url, 'sy_token', { sleep: noSleep }));

    expect(await backend.defaultOrg()).toBe(org);
  });
});

describe('stack summaries', () => {
  it('keeps a null or missing last update and resource count unknown, and 0 as an update in progress', async () => {
    const { url } = await serve((_req, _n, res) =>
      json(res, 200, {
        stacks: [
          { orgName: 'o', projectName: 'p', stackName: 'a', lastUpdate: null, resourceCount: null },
          { orgName: 'o', projectName: 'p', stackName: 'b', lastUpdate: 0 },
          { orgName: 'o', projectName: 'p', stackName: 'c', lastUpdate: 1_700_000_000, resourceCount: 3 },
        ],
      }),
    );
    const backend = new HttpBackend(new ApiClient(url, 'sy_token', { sleep: noSleep }));

    const [a, b, c] = await backend.listStacks({});

    expect(a).toEqual({ ref: { org: 'o', project: 'p', stack: 'a' }, lastUpdate: undefined, updateInProgress: false });
    expect(b).toMatchObject({ lastUpdate: undefined, updateInProgress: true });
    expect(c).toMatchObject({ lastUpdate: 1_700_000_000_000, updateInProgress: false, resourceCount: 3 });
  });
});
