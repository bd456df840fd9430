/**
 * Approvals through `stackyard serve` (docs/plans.md): a stack's requirement and its organization's rules, plans
 * uploaded for approval, approvals by distinct users other than the author, rejections, the start check of
 * `pulumi up` (no plan, a plan not approved, stale, of another program, already applied), and every refusal a `{code,
 * reason, message}` 4xx that changes nothing; each action and refused start in the audit log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failed, ok, PulumiWire, type WireResponse } from './pulumi-wire.js';
import { startAwsStandIns, type AwsStandIns } from '../support/aws-stand-ins.js';
import { startServe, type ServeProcess } from './serve-process.js';
import { createStack, programRequest, stackPath, type Ref, type UpdateKind } from './wire-fixtures.js';

const prod: Ref = { org: 'acme', project: 'web', stack: 'prod' };
const tagged: Ref = { org: 'acme', project: 'api', stack: 'live' };
const DIGEST = 'd'.repeat(64);

/** A plan file as `preview --save-plan` writes it: one bucket to create, made at `stackVersion`. */
function planFile(stackVersion: number) {
  return {
    manifest: { time: '2026-11-28T06:00:00Z', magic: 'm', version: 'v3.0.0' },
    resourcePlans: {
      'urn:pulumi:prod::web::aws:s3/bucket:Bucket::logs': { goal: { type: 'aws:s3/bucket:Bucket', name: 'logs', custom: true }, steps: ['create'], state: null },
      'urn:pulumi:prod::web::pulumi:pulumi:Stack::web-prod': { steps: ['same'], state: null },
    },
    stackyard: { stackVersion, checkpointDigest: 'c'.repeat(64), programDigest: 'sealed', configDigest: 'sealed' },
  };
}

/** A refusal: the status, Pulumi's numeric `code`, and the reason a client acts on. */
function refused(response: WireResponse, status: number, reason: string): string {
  const message = failed(response, status);
  expect(response.json).toMatchObject({ code: status, reason });
  return message;
}

describe.each(['local', 'aws'] as const)('approvals through `stackyard serve` (%s storage)', (storage) => {
  let standIns: AwsStandIns | undefined;
  let serve: ServeProcess;
  let wire: PulumiWire;
  const tokens: Record<string, string> = {};
  const as = (login: string) => ({ token: tokens[login]! });
  const call = (login: string, method: string, path: string, body?: object) =>
    wire.call(method, path, { auth: as(login), ...(body === undefined ? {} : { body }) });

  beforeAll(async () => {
    if (storage === 'aws') standIns = await startAwsStandIns();
    serve = await startServe({ storage, ...(standIns ? { env: standIns.env } : {}) });
    wire = new PulumiWire(serve.url);
    const admin = { token: serve.adminToken };
    ok(await wire.call('POST', '/api/orgs', { auth: admin, body: { name: 'acme' } }), 201);
    for (const [login, role] of [['alice', 'admin'], ['bob', 'member'], ['carol', 'member'], ['vic', 'viewer']] as const) {
      ok(await wire.call('POST', '/api/users', { auth: admin, body: { login } }), 201);
      ok(await wire.call('POST', '/api/orgs/acme/members', { auth: admin, body: { login, role } }), 201);
      tokens[login] = ok(await wire.call('POST', '/api/user/tokens', { auth: admin, body: { description: login, login } }), 201).tokenValue;
    }
    await createStack(wire, tokens.alice!, prod);
    await createStack(wire, tokens.alice!, tagged);
    ok(await call('alice', 'PATCH', `${stackPath(tagged)}/tags`, { 'pulumi:project': 'api', env: 'production' }));
  }, 120_000);

  afterAll(async () => {
    wire?.close();
    await serve?.stop();
    await standIns?.stop();
  });

  it("sets a stack's requirement (admin only) and lets it win over the organization's rules", async () => {
    expect(ok(await call('bob', 'GET', `${stackPath(prod)}/approvals`))).toEqual({ required: 0, source: 'none' });

    failed(await call('bob', 'PUT', `${stackPath(prod)}/approvals`, { required: 2 }), 403);
    failed(await call('alice', 'PUT', `${stackPath(prod)}/approvals`, { required: 11 }), 400);
    const set = ok(await call('alice', 'PUT', `${stackPath(prod)}/approvals`, { required: 2 }));
    failed(await call('bob', 'PUT', '/api/orgs/acme/approvals', { required: 3, tag: 'env=production' }), 403);
    const rules = ok(await call('alice', 'PUT', '/api/orgs/acme/approvals', { required: 3, tag: 'env=production' }));
    ok(await call('alice', 'PUT', '/api/orgs/acme/approvals', { required: 1, stacks: 'web/*' }));

    expect(set).toEqual({ required: 2, source: 'stack' });
    expect(rules).toEqual({ rules: [{ required: 3, tag: 'env=production' }] });
    expect(ok(await call('vic', 'GET', '/api/orgs/acme/approvals')).rules).toEqual([
      { required: 3, tag: 'env=production' },
      { required: 1, stacks: 'web/*' },
    ]);
    expect(ok(await call('bob', 'GET', `${stackPath(prod)}/approvals`))).toEqual({ required: 2, source: 'stack' });
    expect(ok(await call('bob', 'GET', `${stackPath(tagged)}/approvals`))).toEqual({ required: 3, source: 'organization', rule: { tag: 'env=production' } });
    ok(await call('alice', 'PUT', '/api/orgs/acme/approvals', { required: 0, stacks: 'web/*' }));
    expect(ok(await call('bob', 'GET', '/api/orgs/acme/approvals')).rules).toEqual([{ required: 3, tag: 'env=production' }]);
  });

  it('uploads a plan as pending and counts approvals of distinct users other than its author', async () => {
    const version = ok(await call('alice', 'GET', stackPath(prod))).version as number;
    const uploaded = ok(await call('alice', 'POST', `${stackPath(prod)}/plans`, { plan: planFile(version), programDigest: DIGEST }), 201);
    const path = `${stackPath(prod)}/plans/${uploaded.id}`;

    refused(await call('alice', 'POST', `${path}/approve`, {}), 403, 'plan_author_cannot_approve');
    const first = ok(await call('bob', 'POST', `${path}/approve`, { comment: 'bucket looks right' }));
    refused(await call('bob', 'POST', `${path}/approve`, {}), 409, 'already_approved');
    const second = ok(await call('carol', 'POST', `${path}/approve`));
    refused(await call('carol', 'POST', `${path}/reject`, {}), 409, 'plan_not_pending');

    expect(uploaded).toMatchObject({ author: 'alice', stackVersion: version, programDigest: DIGEST, status: 'pending', requiredApprovals: 2, approvals: [] });
    expect(first).toMatchObject({ status: 'pending', approvals: [{ user: 'bob', comment: 'bucket looks right' }] });
    expect(second.status).toBe('approved');
    expect(second.approvals.map((a: { user: string }) => a.user)).toEqual(['bob', 'carol']);
    const shown = ok(await call('vic', 'GET', path));
    expect(shown.plan).toEqual(planFile(version));
    expect(shown.operations).toEqual([
      { urn: 'urn:pulumi:prod::web::aws:s3/bucket:Bucket::logs', type: 'aws:s3/bucket:Bucket', ops: ['create'] },
      { urn: 'urn:pulumi:prod::web::pulumi:pulumi:Stack::web-prod', type: 'pulumi:pulumi:Stack', ops: ['same'] },
    ]);
  });

  it('rejects a plan for good, lists plans newest first, and refuses bad uploads and verdicts changing nothing', async () => {
    const version = ok(await call('alice', 'GET', stackPath(prod))).version as number;
    const plan = ok(await call('carol', 'POST', `${stackPath(prod)}/plans`, { plan: planFile(version), programDigest: DIGEST }), 201);
    const before = ok(await call('alice', 'GET', `${stackPath(prod)}/plans`));

    failed(await call('bob', 'POST', `${stackPath(prod)}/plans`, { plan: { manifest: {} }, programDigest: DIGEST }), 400);
    failed(await call('bob', 'POST', `${stackPath(prod)}/plans`, { plan: planFile(version), programDigest: 'not-hex' }), 400);
    refused(await call('bob', 'POST', `${stackPath(prod)}/plans`, { plan: planFile(version + 5), programDigest: DIGEST }), 409, 'plan_stale');
    failed(await call('vic', 'POST', `${stackPath(prod)}/plans`, { plan: planFile(version), programDigest: DIGEST }), 403);
    failed(await call('vic', 'POST', `${stackPath(prod)}/plans/${plan.id}/approve`), 403);
    failed(await call('bob', 'POST', `${stackPath(prod)}/plans/000000000000000000000/approve`), 404);
    expect(ok(await call('alice', 'GET', `${stackPath(prod)}/plans`))).toEqual(before);

    const rejected = ok(await call('bob', 'POST', `${stackPath(prod)}/plans/${plan.id}/reject`, { comment: 'not today' }));
    refused(await call('alice', 'POST', `${stackPath(prod)}/plans/${plan.id}/approve`), 409, 'plan_not_pending');

    expect(rejected).toMatchObject({ status: 'rejected', rejection: { user: 'bob', comment: 'not today' } });
    const listed = ok(await call('vic', 'GET', `${stackPath(prod)}/plans`)).plans as { id: string; status: string }[];
    expect(listed[0]).toMatchObject({ id: plan.id, status: 'rejected' });
    expect(listed[1]!.status).toBe('approved');
  });

  it('approves a plan at once when the stack requires no approvals', async () => {
    const ref: Ref = { org: 'acme', project: 'web', stack: 'dev' };
    await createStack(wire, tokens.alice!, ref);

    const plan = ok(await call('bob', 'POST', `${stackPath(ref)}/plans`, { plan: planFile(0), programDigest: DIGEST }), 201);

    expect(plan).toMatchObject({ status: 'approved', requiredApprovals: 0, approvals: [] });
  });

  describe('the start check', () => {
    const gated: Ref = { org: 'acme', project: 'web', stack: 'gated' };
    const path = stackPath(gated);
    const version = async () => ok(await call('alice', 'GET', path)).version as number;
    /** `pulumi up`'s requests: create, then start (with the plan the start names, if any). */
    async function start(kind: UpdateKind, dryRun: boolean, plan?: { id: string; programDigest: string }) {
      const created = ok(await call('alice', 'POST', `${path}/${kind}`, programRequest(gated, dryRun)));
      const response = await call('alice', 'POST', `${path}/update/${created.updateID}`, { tags: { 'pulumi:project': 'web' }, ...(plan ? { stackyardPlan: plan } : {}) });
      return { updateId: created.updateID as string, response };
    }
    async function complete(updateId: string, token: string) {
      ok(await wire.call('POST', `${path}/update/${updateId}/complete`, { auth: { updateToken: token }, body: { status: 'succeeded' } }));
    }
    async function approvedPlan() {
      const plan = ok(await call('alice', 'POST', `${path}/plans`, { plan: planFile(await version()), programDigest: DIGEST }), 201);
      for (const login of ['bob', 'carol']) ok(await call(login, 'POST', `${path}/plans/${plan.id}/approve`));
      return plan.id as string;
    }
    const planStatus = async (id: string) => ok(await call('alice', 'GET', `${path}/plans/${id}`));

    beforeAll(async () => {
      await createStack(wire, tokens.alice!, gated);
      ok(await call('alice', 'PUT', `${path}/approvals`, { required: 2 }));
    });

    it("refuses `pulumi up` without a plan with a 409 the pulumi CLI prints, and lets its preview and other kinds run", async () => {
      const preview = await start('update', true);
      const refusal = await start('update', false);

      ok(preview.response);
      const message = refused(refusal.response, 409, 'approval_required');
      expect(message).toMatch(/requires 2 approvals before an update: run 'stackyard preview --save-plan <file>'.*then run 'stackyard up --plan <id>'/);
      expect(ok(await call('alice', 'GET', path)).activeUpdate ?? '').toBe('');
      const refresh = await start('refresh', false);
      await complete(refresh.updateId, ok(refresh.response).token);
    });

    it('starts an update with an approved plan once, and marks the plan applied', async () => {
      const id = await approvedPlan();

      const first = await start('update', false, { id, programDigest: DIGEST });
      const token = ok(first.response).token as string;
      refused((await start('update', false, { id, programDigest: DIGEST })).response, 409, 'plan_already_applied');
      await complete(first.updateId, token);

      expect(await planStatus(id)).toMatchObject({ status: 'applied' });
      refused((await start('update', false, { id, programDigest: DIGEST })).response, 409, 'plan_already_applied');
    });

    it('refuses a plan that is not approved yet, saying how many approvals are missing, and changes nothing', async () => {
      const plan = ok(await call('alice', 'POST', `${path}/plans`, { plan: planFile(await version()), programDigest: DIGEST }), 201);
      ok(await call('bob', 'POST', `${path}/plans/${plan.id}/approve`));
      const before = await planStatus(plan.id);

      const message = refused((await start('update', false, { id: plan.id, programDigest: DIGEST })).response, 409, 'plan_not_approved');
      failed((await start('update', false, { id: plan.id, programDigest: 'not-a-digest' })).response, 400);
      failed((await start('update', false, { id: '000000000000000000000', programDigest: DIGEST })).response, 404);

      expect(message).toMatch(/1 approval of the 2 .* 1 more approval needed/);
      expect(await planStatus(plan.id)).toEqual(before);
    });

    it('voids an approved plan once the program changed, or once the stack moved on', async () => {
      const changed = await approvedPlan();
      const stale = await approvedPlan();

      refused((await start('update', false, { id: changed, programDigest: 'e'.repeat(64) })).response, 409, 'plan_program_changed');
      refused((await start('update', false, { id: changed, programDigest: DIGEST })).response, 409, 'plan_program_changed');
      const moved = await start('refresh', false);
      await complete(moved.updateId, ok(moved.response).token);
      expect(ok(await call('vic', 'GET', `${path}/plans`)).plans.find((listed: { id: string }) => listed.id === stale)).toMatchObject({ status: 'void' });
      const message = refused((await start('update', false, { id: stale, programDigest: DIGEST })).response, 409, 'plan_stale');

      expect(await planStatus(changed)).toMatchObject({ status: 'void', voidReason: 'the program changed since the plan was made' });
      expect(await planStatus(stale)).toMatchObject({ status: 'void', voidReason: expect.stringMatching(/the plan was made at version \d+; the stack is at version \d+/) });
      expect(message).toMatch(/run preview --save-plan again/);
    });
  });

  it('writes every change to the audit log', async () => {
    const audit = ok(await call('alice', 'GET', '/api/orgs/acme/auditlogs?pageSize=1000')).auditLogEvents as { event: string; user: { name: string } }[];
    const events = audit.map((entry) => `${entry.event} ${entry.user.name}`);

    for (const expected of ['approvals.changed alice', 'approvals.rule-changed alice', 'plan.uploaded alice', 'plan.approved bob', 'plan.approved carol', 'plan.rejected bob', 'plan.refused alice']) {
      expect(events).toContain(expected);
    }
  });
});
