/**
 * `stack approvals`, `org approvals` and `plan ls|show|approve|reject` through the bundled CLI (needs `npm run
 * build`): the requests they send and what they print, against a loopback server answering as the approvals
 * contract says (docs/plans.md), and the local backend's refusal.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox, removeSandboxes } from './cli-harness.js';

interface Seen {
  method: string;
  url: string;
  body: unknown;
}

const STACK = '/api/stacks/acme/web/prod';
const URN = 'urn:pulumi:prod::web::testprov:index:Thing::a';

const pendingPlan = {
  id: 'p1',
  author: 'alice',
  created: '2026-11-28T06:00:00.000Z',
  stackVersion: 3,
  programDigest: 'ab'.repeat(32),
  status: 'pending',
  requiredApprovals: 2,
  approvals: [{ user: 'bob', at: '2026-11-28T06:01:00.000Z' }],
};

/** The answers of a service that keeps approvals, per the contract; anything else is a 404. */
function answer(req: Seen, res: ServerResponse): void {
  const json = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const route = `${req.method} ${req.url}`;
  if (route === 'GET /api/user') return json(200, { githubLogin: 'carol', organizations: [{ githubLogin: 'acme' }] });
  if (route === `PUT ${STACK}/approvals`) return json(200, { required: (req.body as { required: number }).required, source: 'stack' });
  if (route === `GET ${STACK}/approvals`) return json(200, { required: 2, source: 'organization', rule: { stacks: 'web/*', tag: 'env=prod' } });
  if (route === 'PUT /api/orgs/acme/approvals' || route === 'GET /api/orgs/acme/approvals') return json(200, { rules: [{ required: 2, stacks: 'web/*', tag: 'env=prod' }, { required: 1 }] });
  if (route === `GET ${STACK}/plans`) return json(200, { plans: [pendingPlan] });
  if (route === `POST ${STACK}/plans/p1/approve`) {
    const approvals = [...pendingPlan.approvals, { user: 'carol', at: '2026-11-28T06:02:00.000Z' }];
    return json(200, { ...pendingPlan, approvals, status: 'approved' });
  }
  if (route === `POST ${STACK}/plans/p2/approve`) return json(403, { code: 403, reason: 'plan_author_cannot_approve', message: "the plan's author cannot approve it: ask another user" });
  if (route === `POST ${STACK}/plans/p1/reject`) return json(200, { ...pendingPlan, status: 'rejected', rejection: { user: 'carol', at: '2026-11-28T06:03:00.000Z', comment: 'not now' } });
  if (route === `GET ${STACK}/plans/p1`) {
    const plan = { manifest: {}, resourcePlans: { [URN]: { goal: { inputDiff: { updates: { value: 2 }, adds: { label: 'x' } } }, steps: ['update'] } } };
    return json(200, { ...pendingPlan, plan, operations: [{ urn: URN, type: 'testprov:index:Thing', ops: ['update'] }] });
  }
  if (route === `GET ${STACK}/export`) return json(200, { version: 3, deployment: { resources: [{ urn: URN, id: 'a-1', type: 'testprov:index:Thing', inputs: { value: 1 } }] } });
  json(404, { code: 404, message: `no route ${route}` });
}

describe('approval and plan commands', () => {
  const sandbox = new CliSandbox();
  const seen: Seen[] = [];
  let server: Server;
  const cli = (...args: string[]) => sandbox.run(sandbox.root, args, { env: { STACKYARD_ACCESS_TOKEN: 'sy_carol' } });
  const sent = (method: string, url: string) => seen.filter((s) => s.method === method && s.url === url);

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const entry = { method: req.method!, url: req.url!, body: text ? (JSON.parse(text) as unknown) : undefined };
        seen.push(entry);
        answer(entry, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const login = await cli('login', `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    expect(login.status, login.stderr).toBe(0);
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    removeSandboxes();
  });

  it('sets and shows a stack requirement, refusing a number out of range before asking the service', async () => {
    const set = await cli('stack', 'approvals', 'set', '2', '-s', 'acme/web/prod');
    const get = await cli('stack', 'approvals', 'get', '-s', 'acme/web/prod');
    const getJson = await cli('stack', 'approvals', 'get', '--json', '-s', 'acme/web/prod');
    const tooMany = await cli('stack', 'approvals', 'set', '11', '-s', 'acme/web/prod');

    expect(set.status, set.stderr).toBe(0);
    expect(sent('PUT', `${STACK}/approvals`).map((s) => s.body)).toEqual([{ required: 2 }]);
    expect(set.stdout).toBe('Stack acme/web/prod needs 2 approvals of an update plan before an update (its own setting).\n');
    expect(get.stdout).toBe("Stack acme/web/prod needs 2 approvals of an update plan before an update (organization rule for stacks 'web/*', tag env=prod).\n");
    expect(JSON.parse(getJson.stdout)).toEqual({ required: 2, source: 'organization', rule: { stacks: 'web/*', tag: 'env=prod' } });
    expect(tooMany.status).toBe(1);
    expect(tooMany.stderr).toContain("invalid number of approvals '11': give a whole number from 0 to 10");
  }, 60_000);

  it('upserts an organization rule with --stacks and --tag and lists the rules', async () => {
    const set = await cli('org', 'approvals', 'set', 'acme', '2', '--stacks', 'web/*', '--tag', 'env=prod');
    const get = await cli('org', 'approvals', 'get', 'acme');
    const badTag = await cli('org', 'approvals', 'set', 'acme', '1', '--tag', 'env');

    expect(set.status, set.stderr).toBe(0);
    expect(sent('PUT', '/api/orgs/acme/approvals').map((s) => s.body)).toEqual([{ required: 2, stacks: 'web/*', tag: 'env=prod' }]);
    expect(get.stdout).toBe('REQUIRED  STACKS  TAG\n2         web/*   env=prod\n1         *\n');
    expect(badTag.status).toBe(1);
    expect(badTag.stderr).toContain("invalid --tag 'env': give it as name=value");
  }, 60_000);

  it('lists plans, approves and rejects one at once with a comment, and prints the service\'s refusal of an author', async () => {
    const ls = await cli('plan', 'ls', '-s', 'acme/web/prod');
    const lsJson = await cli('plan', 'ls', '--json', '-s', 'acme/web/prod');
    const approve = await cli('plan', 'approve', 'p1', '-s', 'acme/web/prod');
    const reject = await cli('plan', 'reject', 'p1', '-m', 'not now', '-s', 'acme/web/prod');
    const author = await cli('plan', 'approve', 'p2', '-s', 'acme/web/prod');

    expect(ls.stdout).toBe('ID  STATUS   APPROVALS  AUTHOR  VERSION  CREATED\np1  pending  1/2        alice   3        2026-11-28T06:00:00.000Z\n');
    expect(JSON.parse(lsJson.stdout)).toEqual([pendingPlan]);
    expect(approve.stdout).toBe('Approved plan p1: it is now approved.\n');
    expect(sent('POST', `${STACK}/plans/p1/approve`).map((s) => s.body)).toEqual([{}]);
    expect(reject.stdout).toBe('Rejected plan p1: it is now rejected by carol.\n');
    expect(sent('POST', `${STACK}/plans/p1/reject`).map((s) => s.body)).toEqual([{ comment: 'not now' }]);
    expect(author.status).toBe(1);
    expect(author.stderr).toBe("error: [403] the plan's author cannot approve it: ask another user\n");
  }, 60_000);

  it("shows a plan's status, approvals and operations as a diff against the stack's state", async () => {
    const show = await cli('plan', 'show', 'p1', '-s', 'acme/web/prod');

    expect(show.status, show.stderr).toBe(0);
    expect(show.stdout).toBe(
      [
        'Plan p1: pending (1 of 2 approvals)',
        '    made by alice at 2026-11-28T06:00:00.000Z, at version 3 of the stack',
        '    approved by bob at 2026-11-28T06:01:00.000Z',
        '',
        'Planned changes of acme/web/prod:',
        '    ~ testprov:index:Thing: (update)',
        `        [urn=${URN}]`,
        '      + label: "x"',
        '      ~ value: 1 => 2',
        'Resources:',
        '    1 updated',
        '',
      ].join('\n'),
    );
  }, 60_000);

  it('says on the local backend that approvals need a service', async () => {
    const local = new CliSandbox();
    await local.run(local.root, ['login', '--local']);

    const get = await local.run(local.root, ['plan', 'ls', '-s', 'organization/web/prod']);

    expect(get.status).toBe(1);
    expect(get.stderr).toContain('approvals of update plans need a Stackyard service');
  }, 60_000);
});
