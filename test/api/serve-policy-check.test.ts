/**
 * The service's own check of required policy packs (docs/policy.md, "What the service checks"), driven on the wire as
 * a client that skips or ignores the packs would drive it: create (the answer lists the required packs), start, save
 * state, send events, complete as succeeded. Without each required pack's analyze summary, or with a mandatory
 * violation, the update is recorded as failed naming the pack; its saved state stays; `policy.bypassed` is audited;
 * the update_failed hook fires. Stacks no group requires packs for, and packs enabled mid-update, change nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAwsStandIns, type AwsStandIns } from '../support/aws-stand-ins.js';
import { npmPack, PUBLISHED_PACK_POLICIES } from '../support/policy-pack-tarball.js';
import { CliSandbox, removeSandboxes } from '../cli/cli-harness.js';
import { eventually, fastHookEnv, startReceiver, type Receiver } from '../hooks/hook-fixtures.js';
import { failed, ok, PulumiWire } from './pulumi-wire.js';
import { startServe, type ServeProcess } from './serve-process.js';
import { createStack, deployment, engineEvents, programRequest, stackPath, type Ref } from './wire-fixtures.js';

const PACKS = '/api/orgs/acme/policypacks';
const DEFAULT_GROUP = '/api/orgs/acme/policygroups/default-policy-group';
const ref = (stack: string): Ref => ({ org: 'acme', project: 'app', stack });
const pack = { policyPackName: 'required-tags', policyPackVersion: '1.0.0', policyPackVersionTag: '1.0.0' };
const analyzeSummary = (sequence: number) => ({ sequence, timestamp: 1, policyAnalyzeSummaryEvent: { resourceUrn: 'urn:pulumi:dev::app::pulumi:pulumi:Stack::app-dev', ...pack, passed: ['has-owner-tag'] } });
const mandatoryViolation = (sequence: number) => ({
  sequence,
  timestamp: 1,
  policyEvent: { message: 'b0 has no owner tag\n', color: 'never', policyName: 'has-owner-tag', ...pack, enforcementLevel: 'mandatory' },
});

describe.each(['local', 'aws'] as const)('the policy check of completed updates through `stackyard serve` (%s storage)', (storage) => {
  let standIns: AwsStandIns | undefined;
  let serve: ServeProcess;
  let receiver: Receiver;
  let wire: PulumiWire;
  const admin = () => ({ token: serve.adminToken });
  const call = (method: string, path: string, body?: unknown) => wire.call(method, path, { auth: admin(), ...(body === undefined ? {} : { body }) });

  /** A client's update: create, start, one checkpoint, the events given (after the usual prelude, diagnostic and summary), complete as succeeded. */
  async function update(target: Ref, policyEvents: object[], beforeComplete?: () => Promise<void>) {
    const created = ok(await call('POST', `${stackPath(target)}/update`, programRequest(target, false)));
    const started = ok(await call('POST', `${stackPath(target)}/update/${created.updateID}`, { tags: { 'pulumi:project': 'app' } }));
    const lease = { updateToken: started.token };
    const at = `${stackPath(target)}/update/${created.updateID}`;
    const { version: schema, deployment: state } = deployment(serve.url, target, 1);
    ok(await wire.call('PATCH', `${at}/checkpoint`, { auth: lease, body: { isInvalid: false, version: schema, deployment: state } }));
    ok(await wire.call('POST', `${at}/events/batch`, { auth: lease, body: { events: [...engineEvents({ create: 2 }, false), ...policyEvents] } }));
    await beforeComplete?.();
    const completed = await wire.call('POST', `${at}/complete`, { auth: lease, body: { status: 'succeeded' } });
    const retried = await wire.call('POST', `${at}/complete`, { auth: lease, body: { status: 'succeeded' } });
    return { created, completed, retried, version: started.version as number };
  }

  let upload: { uri: string; headers: Record<string, string>; response: Response };
  const latest = async (target: Ref) => ok(await call('GET', `${stackPath(target)}/updates/latest`)).info;

  beforeAll(async () => {
    if (storage === 'aws') standIns = await startAwsStandIns();
    receiver = await startReceiver();
    serve = await startServe({ storage, env: { ...fastHookEnv({ STACKYARD_HOOKS_ALLOW_PRIVATE: 'true' }), ...(standIns?.env ?? {}) } });
    wire = new PulumiWire(serve.url);
    ok(await call('POST', '/api/orgs', { name: 'acme' }), 201);
    for (const stack of ['skipped', 'violated', 'honest', 'free', 'late']) await createStack(wire, serve.adminToken, ref(stack));
    const created = ok(await call('POST', PACKS, { name: 'required-tags', displayName: 'Required tags', versionTag: '1.0.0', policies: PUBLISHED_PACK_POLICIES, runtime: 'nodejs' }));
    // as `pulumi policy publish` uploads: a PUT of the tarball to the URI given, with exactly the headers given
    upload = { uri: created.uploadURI, headers: created.requiredHeaders, response: await fetch(created.uploadURI, { method: 'PUT', headers: created.requiredHeaders, body: new Uint8Array(npmPack()) }) };
    ok(await call('POST', `${PACKS}/required-tags/versions/1.0.0/complete`));
    ok(await call('PATCH', DEFAULT_GROUP, { addPolicyPack: { name: 'required-tags', versionTag: '1.0.0', config: { 'has-owner-tag': { tag: 'owner' } } } }));
    for (const stack of ['free', 'late']) ok(await call('PATCH', DEFAULT_GROUP, { removeStack: { name: stack, routingProject: 'app' } }));
    ok(await call('POST', `${stackPath(ref('skipped'))}/hooks`, { name: 'failures', url: `${receiver.url}/ok/${storage}`, events: ['update_failed', 'update_succeeded'] }), 201);
  }, 120_000);

  afterAll(async () => {
    wire?.close();
    await serve?.stop();
    await receiver?.stop();
    await standIns?.stop();
    removeSandboxes();
  });

  it(storage === 'aws' ? 'publishes through a presigned S3 PUT: the tarball goes to the bucket, not through the API' : 'publishes through the API’s upload route, with a one-time ticket', async () => {
    expect(upload.response.status).toBe(200);
    if (storage === 'aws') {
      expect(upload.uri.startsWith(`${standIns!.env.AWS_ENDPOINT_URL_S3}/${standIns!.bucket}/v1/policypacks/acme/required-tags/1.0.0.tgz?`)).toBe(true);
      expect(new URL(upload.uri).searchParams.get('X-Amz-Expires')).toBe('300');
      expect(upload.headers).toEqual({ 'Content-Type': 'application/gzip' });
    } else {
      expect(upload.uri).toBe(`${serve.url}${PACKS}/required-tags/versions/1.0.0/upload`);
      expect(Object.keys(upload.headers).sort()).toEqual(['Content-Type', 'X-Stackyard-Upload-Ticket']);
    }
    const download = await fetch(`${serve.url}${PACKS}/required-tags/versions/1.0.0/download`, { headers: { authorization: `token ${serve.adminToken}` } });
    expect(Buffer.from(await download.arrayBuffer())).toEqual(npmPack());
  });

  it('records an update whose events lack the required pack’s summary as failed, naming the pack; its state stays, the audit log and the hook say so', async () => {
    const skipped = ref('skipped');

    const { created, completed, retried, version } = await update(skipped, []);

    expect(created.requiredPolicies.map((p: { name: string; versionTag: string }) => `${p.name}@${p.versionTag}`)).toEqual(['required-tags@1.0.0']);
    const message = failed(completed, 409);
    expect(message).toContain('required policy pack required-tags@1.0.0 did not report its analysis');
    expect(failed(retried, 409)).toBe(message);
    const info = await latest(skipped);
    expect(info).toMatchObject({ result: 'failed', version, endReason: 'policy-bypassed', endMessage: 'required policy pack required-tags@1.0.0 did not report its analysis' });
    // the state it saved is the stack's, as for any failed update; the stack is free for the next one
    const exported = ok(await call('GET', `${stackPath(skipped)}/export`));
    expect(exported.deployment.resources.map((r: { urn: string }) => r.urn)).toContain('urn:pulumi:skipped::app::aws:s3/bucket:Bucket::b0');
    expect(ok(await call('GET', stackPath(skipped))).activeUpdate ?? '').toBe('');
    const audit = ok(await call('GET', '/api/orgs/acme/auditlogs?pageSize=1000')).auditLogEvents as { event: string; description: string }[];
    const bypassed = audit.filter((e) => e.event === 'policy.bypassed');
    expect(bypassed).toHaveLength(1);
    expect(bypassed[0]!.description).toContain('required-tags@1.0.0');
    expect(audit.find((e) => e.event === 'update.completed' && e.description.includes(created.updateID))?.description).toMatch(/ failed$/);
    const delivered = await eventually('the update_failed delivery', async () => (await receiver.received()).find((r) => r.path === `/ok/${storage}`));
    expect(JSON.parse(delivered.body)).toMatchObject({ event: 'update_failed', result: 'failed', updateId: created.updateID, endReason: 'policy-bypassed', endMessage: expect.stringContaining('required-tags@1.0.0') });
  });

  it('records an update that reported a mandatory violation but completed as succeeded as failed, naming pack and policy', async () => {
    const { completed } = await update(ref('violated'), [analyzeSummary(10), mandatoryViolation(11)]);

    expect(failed(completed, 409)).toContain('policy pack required-tags@1.0.0 reported a mandatory violation of has-owner-tag');
    expect(await latest(ref('violated'))).toMatchObject({ result: 'failed', endReason: 'policy-bypassed' });
  });

  it('accepts an update whose events show the required pack’s analysis', async () => {
    const { completed } = await update(ref('honest'), [analyzeSummary(10)]);

    ok(completed);
    const info = await latest(ref('honest'));
    expect(info.result).toBe('succeeded');
    expect(info.endReason).toBeUndefined();
  });

  it('leaves stacks no group requires packs for untouched, and checks only the packs required when the update was created', async () => {
    const free = await update(ref('free'), []);
    const late = await update(ref('late'), [], async () => {
      ok(await call('PATCH', DEFAULT_GROUP, { addStack: { name: 'late', routingProject: 'app' } }));
    });

    expect(free.created.requiredPolicies).toEqual([]);
    ok(free.completed);
    expect((await latest(ref('free'))).result).toBe('succeeded');
    expect(late.created.requiredPolicies).toEqual([]);
    ok(late.completed);
    expect((await latest(ref('late'))).result).toBe('succeeded');
    expect(ok(await call('GET', `${stackPath(ref('late'))}/policypacks`)).requiredPolicies).toHaveLength(1);
  });

  it('stackyard stack history says the service’s policy check failed the update, and why', async () => {
    const sandbox = new CliSandbox({ STACKYARD_BACKEND_URL: serve.url, STACKYARD_ACCESS_TOKEN: serve.adminToken });
    const project = sandbox.project('app', 'name: app\nruntime: nodejs\n');

    const history = await sandbox.run(project, ['stack', 'history', '--stack', 'acme/skipped']);

    expect(history.status, history.stderr).toBe(0);
    expect(history.stdout).toContain("Status: failed (by the service's policy check: required policy pack required-tags@1.0.0 did not report its analysis)");
  });
});
