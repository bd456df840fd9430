/**
 * Hooks end to end against `stackyard serve` (a child process on local storage, dispatching every 50 ms with
 * millisecond backoff): the HTTP routes, deliveries to a receiver running as its own process, a Lambda destination
 * through the Invoke API stand-in, gates before the lease, and the SSRF guard. Needs `npm run build`.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../shared/core/hooks/signing.js';
import { failed, ok, PulumiWire } from '../api/pulumi-wire.js';
import { startServe, type ServeProcess } from '../api/serve-process.js';
import { createStack, programRequest, stackPath, type Ref } from '../api/wire-fixtures.js';
import { startLambdaStandIn, type LambdaStandIn } from '../support/lambda-stand-in.js';
import { createUser, eventually, fastHookEnv, filesUnder, runConfiguredUpdate, startReceiver, type Receiver, type Received } from './hook-fixtures.js';

const SIGNING_SECRET = 'whsec-7d1f0c9a4be2';
const CONFIG_SECRET = 'hunter2-in-the-stack-config';

interface Delivery {
  id: string;
  hook: string;
  event: string;
  eventId: string;
  status: 'pending' | 'succeeded' | 'dead';
  attempts: { attempt: number; ok: boolean; responseCode?: number; error?: string }[];
  redeliveryOf?: string;
  payload: Record<string, unknown>;
}

let receiver: Receiver;
let lambda: LambdaStandIn;
let serve: ServeProcess;
let wire: PulumiWire;
let dataDir: string;
let alice: string;
let bob: string;
/** Every config ciphertext sent with an update, for the scan at the end. */
const configCiphertexts: string[] = [];

const ref = (stack: string): Ref => ({ org: 'acme', project: 'web', stack });
const hooksOf = (target: Ref | string) => (typeof target === 'string' ? `/api/orgs/${target}/hooks` : `${stackPath(target)}/hooks`);
const arn = (name: string) => `arn:aws:lambda:us-east-1:123456789012:function:${name}`;
const asAlice = () => ({ token: alice });

async function addHook(target: Ref | string, body: Record<string, unknown>) {
  return ok(await wire.call('POST', hooksOf(target), { auth: asAlice(), body }), 201);
}

async function deliveriesOf(target: Ref | string, hook: string): Promise<Delivery[]> {
  return ok(await wire.call('GET', `${hooksOf(target)}/${hook}/deliveries`, { auth: asAlice() })).deliveries;
}

async function deliveryIn(target: Ref | string, hook: string, status: Delivery['status']): Promise<Delivery> {
  return eventually(`a ${status} delivery of ${hook}`, async () => (await deliveriesOf(target, hook)).find((d) => d.status === status));
}

async function receivedAt(path: string, count: number): Promise<Received[]> {
  return eventually(`${count} requests at ${path}`, async () => {
    const matching = (await receiver.received()).filter((request) => request.path === path);
    return matching.length >= count ? matching : undefined;
  });
}

async function newStack(stack: string): Promise<Ref> {
  const target = ref(stack);
  await createStack(wire, alice, target);
  return target;
}

/** Stack config holding a secret, as the CLI sends it: the service's ciphertext of the value. */
async function secretConfig(target: Ref): Promise<Record<string, unknown>> {
  const plaintext = Buffer.from(CONFIG_SECRET).toString('base64');
  const { ciphertext } = ok(await wire.call('POST', `${stackPath(target)}/encrypt`, { auth: asAlice(), body: { plaintext } }));
  configCiphertexts.push(ciphertext);
  return { 'web:dbPassword': { string: ciphertext, secret: true, object: false } };
}

/** A whole update (or preview) whose config holds a secret. */
async function update(target: Ref, dryRun = false): Promise<string> {
  return (await runConfiguredUpdate(wire, alice, target, { dryRun, config: await secretConfig(target) })).updateId;
}

beforeAll(async () => {
  receiver = await startReceiver();
  lambda = await startLambdaStandIn({
    notify: () => null,
    gatekeeper: () => ({ allow: false, message: 'lambda says no' }),
  });
  dataDir = mkdtempSync(join(tmpdir(), 'stackyard-hooks-'));
  serve = await startServe({
    storage: 'local',
    dataDir,
    env: fastHookEnv({ STACKYARD_HOOKS_ALLOW_PRIVATE: 'true', AWS_ENDPOINT_URL_LAMBDA: lambda.endpoint }),
  });
  wire = new PulumiWire(serve.url);
  ok(await wire.call('POST', '/api/orgs', { auth: { token: serve.adminToken }, body: { name: 'acme' } }), 201);
  alice = await createUser(wire, serve.adminToken, 'alice', ['acme'], 'admin');
  bob = await createUser(wire, serve.adminToken, 'bob', []);
});

afterAll(async () => {
  wire?.close();
  await serve?.stop();
  await receiver?.stop();
  await lambda?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('the hook routes', () => {
  let routes: Ref;

  beforeAll(async () => {
    routes = await newStack('routes');
  });

  it.each([
    [{ name: 'bad name', url: 'https://ci.example.com/x' }, /Invalid hook name 'bad name'/],
    [{ name: 'both', url: 'https://ci.example.com/x', lambdaArn: arn('f') }, /exactly one destination/],
    [{ name: 'neither' }, /exactly one destination/],
    [{ name: 'typo', url: 'https://ci.example.com/x', events: ['update_finished'] }, /Unknown hook event 'update_finished': use one of .*update_succeeded/],
    [{ name: 'arn', lambdaArn: 'arn:aws:lambda:nowhere' }, /Invalid Lambda function ARN/],
    [{ name: 'short', url: 'https://ci.example.com/x', secret: 'short' }, /secret must be 8 to 256 characters/],
    [{ name: 'open', url: 'https://ci.example.com/x', failOpen: true }, /--fail-open only applies to gates/],
    [{ name: 'ftp', url: 'ftp://ci.example.com/x' }, /must use https:\/\//],
    [{ name: 'creds', url: 'https://user:pw@ci.example.com/x' }, /may not carry credentials/],
    [{ name: 5, url: 'https://ci.example.com/x' }, /Invalid add hook request: field 'name'/],
    [undefined, /the request has no body/],
  ])('refuses %j with a 400 that says what is wrong', async (body, message) => {
    const response = await wire.call('POST', hooksOf(routes), { auth: asAlice(), body });

    expect(failed(response, 400)).toMatch(message);
    expect(ok(await wire.call('GET', hooksOf(routes), { auth: asAlice() })).hooks).toEqual([]);
  });

  it('refuses a second hook of the same name (409), unknown hooks and deliveries (404), and bad limits (400)', async () => {
    await addHook(routes, { name: 'once', url: `${receiver.url}/ok/once`, active: false });

    expect(failed(await wire.call('POST', hooksOf(routes), { auth: asAlice(), body: { name: 'once', url: `${receiver.url}/ok/twice` } }), 409)).toMatch(
      /Hook 'once' already exists/,
    );
    expect(failed(await wire.call('GET', `${hooksOf(routes)}/missing`, { auth: asAlice() }), 404)).toMatch(/Hook 'missing' not found/);
    expect(failed(await wire.call('DELETE', `${hooksOf(routes)}/missing`, { auth: asAlice() }), 404)).toMatch(/Hook 'missing' not found/);
    expect(failed(await wire.call('POST', `${hooksOf(routes)}/once/deliveries/0000000000000-0000000000000000/redeliver`, { auth: asAlice() }), 404)).toMatch(
      /Delivery '0000000000000-0000000000000000' of hook 'once' not found/,
    );
    expect(failed(await wire.call('GET', `${hooksOf(routes)}/once/deliveries?limit=0`, { auth: asAlice() }), 400)).toMatch(/1 to 200/);
    expect(failed(await wire.call('GET', `${hooksOf(routes)}/once/deliveries?limit=ten`, { auth: asAlice() }), 400)).toMatch(/whole number/);
  });

  it('answers 404 to a user outside the organization and 401 without a token, changing nothing', async () => {
    await addHook('acme', { name: 'watch', url: `${receiver.url}/ok/watch`, active: false });
    const calls: [string, string, unknown?][] = [
      ['GET', hooksOf('acme')],
      ['POST', hooksOf('acme'), { name: 'intruder', url: 'https://evil.example.com/x' }],
      ['GET', `${hooksOf('acme')}/watch`],
      ['DELETE', `${hooksOf('acme')}/watch`],
      ['POST', `${hooksOf('acme')}/watch/ping`],
      ['GET', `${hooksOf('acme')}/watch/deliveries`],
      ['GET', hooksOf(routes)],
      ['POST', hooksOf(routes), { name: 'intruder', url: 'https://evil.example.com/x' }],
      ['DELETE', `${hooksOf(routes)}/once`],
    ];

    for (const [method, path, body] of calls) {
      expect(failed(await wire.call(method, path, { auth: { token: bob }, body }), 404), `${method} ${path}`).toMatch(/not found/);
      failed(await wire.call(method, path, { body }), 401);
    }
    expect(ok(await wire.call('GET', hooksOf('acme'), { auth: asAlice() })).hooks.map((h: { name: string }) => h.name)).toEqual(['watch']);
    expect(ok(await wire.call('GET', `${hooksOf(routes)}/once`, { auth: asAlice() }))).toMatchObject({ name: 'once', stack: 'acme/web/routes' });
  });

  it("lists a stack's own hooks with its organization's, and shows each by name in its own scope", async () => {
    const listed = ok(await wire.call('GET', hooksOf(routes), { auth: asAlice() })).hooks;
    const orgHook = ok(await wire.call('GET', `${hooksOf('acme')}/watch`, { auth: asAlice() }));

    expect(listed.map((h: { name: string; stack?: string }) => [h.name, h.stack ?? 'org'])).toEqual([
      ['watch', 'org'],
      ['once', 'acme/web/routes'],
    ]);
    expect(orgHook).toMatchObject({ name: 'watch', org: 'acme', active: false });
    expect(orgHook.stack).toBeUndefined();
    failed(await wire.call('GET', `${hooksOf(routes)}/watch`, { auth: asAlice() }), 404);
  });
});

describe('deliveries', () => {
  it('signs every body with the hook secret (hex HMAC-SHA256 of the raw bytes) and never shows the secret', async () => {
    const signed = await newStack('signed');
    const added = await addHook(signed, { name: 'signed', url: `${receiver.url}/ok/signed`, secret: SIGNING_SECRET });
    const shown = (await wire.call('GET', `${hooksOf(signed)}/signed`, { auth: asAlice() })).text;

    await update(signed);
    const requests = await receivedAt('/ok/signed', 2);
    const deliveries = await eventually('both deliveries succeeded', async () => {
      const all = await deliveriesOf(signed, 'signed');
      return all.length === 2 && all.every((d) => d.status === 'succeeded') ? all : undefined;
    });

    expect(added.destination).toEqual({ kind: 'https', url: `${receiver.url}/ok/signed`, hasSecret: true });
    expect(JSON.stringify(added)).not.toContain(SIGNING_SECRET);
    expect(shown).not.toContain(SIGNING_SECRET);
    for (const request of requests) {
      const signature = request.headers['pulumi-webhook-signature'] as string;
      expect(signature).toBe(createHmac('sha256', SIGNING_SECRET).update(request.body).digest('hex'));
      expect(verifySignature(SIGNING_SECRET, request.body, signature)).toBe(true);
      expect(verifySignature(SIGNING_SECRET, request.body.replace('"acme"', '"evil"'), signature)).toBe(false);
      expect(request.headers['pulumi-webhook-kind']).toBe('stack_update');
    }
    expect(requests.map((r) => JSON.parse(r.body).event).sort()).toEqual(['update_started', 'update_succeeded']);
    expect(requests.map((r) => r.headers['pulumi-webhook-id']).sort()).toEqual(deliveries.map((d) => d.id).sort());
    expect(JSON.parse(requests.find((r) => JSON.parse(r.body).event === 'update_succeeded')!.body)).toMatchObject({
      organization: { name: 'acme' },
      projectName: 'web',
      stackName: 'signed',
      kind: 'update',
      result: 'succeeded',
      isPreview: false,
      user: { name: 'alice' },
    });
  });

  it('delivers to each hook only the events its filter selects', async () => {
    const filtered = await newStack('filtered');
    await addHook(filtered, { name: 'everything', url: `${receiver.url}/ok/f-all` });
    await addHook(filtered, { name: 'succeeded', url: `${receiver.url}/ok/f-succeeded`, events: ['update_succeeded'] });
    await addHook(filtered, { name: 'previews', url: `${receiver.url}/ok/f-previews`, events: ['preview_succeeded', 'destroy_succeeded'] });

    await update(filtered, true);
    await update(filtered);
    // Fan-out creates every hook's delivery of an event at once, so once the catch-all has all three, all are made.
    await eventually('the catch-all hook to have all three events', async () => ((await deliveriesOf(filtered, 'everything')).length === 3 ? true : undefined));
    const bodies = async (path: string, count: number) => (await receivedAt(path, count)).map((r) => JSON.parse(r.body).event);

    expect((await deliveriesOf(filtered, 'everything')).map((d) => d.event).sort()).toEqual(['preview_succeeded', 'update_started', 'update_succeeded']);
    expect((await deliveriesOf(filtered, 'succeeded')).map((d) => d.event)).toEqual(['update_succeeded']);
    expect((await deliveriesOf(filtered, 'previews')).map((d) => d.event)).toEqual(['preview_succeeded']);
    expect(await bodies('/ok/f-succeeded', 1)).toEqual(['update_succeeded']);
    expect(await bodies('/ok/f-previews', 1)).toEqual(['preview_succeeded']);
  });

  it('delivers to a Lambda function with InvocationType Event, as {id, kind, payload}', async () => {
    const target = await newStack('lambda');
    await addHook(target, { name: 'notify', lambdaArn: arn('notify'), events: ['update_succeeded'] });

    await update(target);
    const delivery = await deliveryIn(target, 'notify', 'succeeded');
    const invocation = lambda.invocations.find((i) => (i.payload as { id?: string } | null)?.id === delivery.id);

    expect(invocation).toMatchObject({
      functionName: arn('notify'),
      invocationType: 'Event',
      payload: { id: delivery.id, kind: 'stack_update', payload: { event: 'update_succeeded', stackName: 'lambda', result: 'succeeded' } },
    });
    expect(delivery.attempts).toMatchObject([{ attempt: 1, ok: true, responseCode: 202 }]);
  });
});

describe('retries, dead letters and redelivery', () => {
  let outcomes: Ref;

  beforeAll(async () => {
    outcomes = await newStack('outcomes');
    await addHook(outcomes, { name: 'flaky', url: `${receiver.url}/flaky/2/outcomes`, events: ['update_succeeded'] });
    await addHook(outcomes, { name: 'down', url: `${receiver.url}/dead/outcomes`, events: ['update_succeeded'] });
    await addHook(outcomes, { name: 'recovers', url: `${receiver.url}/flaky/4/recovers`, events: ['update_succeeded'] });
    await update(outcomes);
  });

  it('retries a receiver that fails twice until one attempt succeeds, with the same delivery id', async () => {
    const delivery = await deliveryIn(outcomes, 'flaky', 'succeeded');
    const requests = await receivedAt('/flaky/2/outcomes', 3);

    expect(delivery.attempts.map((a) => [a.ok, a.responseCode])).toEqual([
      [false, 503],
      [false, 503],
      [true, 200],
    ]);
    expect(await deliveriesOf(outcomes, 'flaky')).toHaveLength(1);
    expect(requests.map((r) => r.status)).toEqual([503, 503, 200]);
    expect(new Set(requests.map((r) => r.headers['pulumi-webhook-id']))).toEqual(new Set([delivery.id]));
  });

  it('dead-letters a delivery whose receiver fails every attempt', async () => {
    const delivery = await deliveryIn(outcomes, 'down', 'dead');
    const requests = await receivedAt('/dead/outcomes', 4);

    expect(delivery.attempts.map((a) => [a.attempt, a.ok, a.responseCode])).toEqual([
      [1, false, 500],
      [2, false, 500],
      [3, false, 500],
      [4, false, 500],
    ]);
    expect(requests).toHaveLength(4);
  });

  it('redelivers a dead delivery as a new delivery of the same payload', async () => {
    const dead = await deliveryIn(outcomes, 'recovers', 'dead');
    const before = await receivedAt('/flaky/4/recovers', 4);

    const redelivered: Delivery = ok(
      await wire.call('POST', `${hooksOf(outcomes)}/recovers/deliveries/${dead.id}/redeliver`, { auth: asAlice() }),
    );
    const after = await receivedAt('/flaky/4/recovers', 5);

    expect(redelivered).toMatchObject({ status: 'succeeded', redeliveryOf: dead.id, eventId: dead.eventId, event: 'update_succeeded' });
    expect(redelivered.id).not.toBe(dead.id);
    expect(redelivered.payload).toEqual(dead.payload);
    expect(after[4]!.headers['pulumi-webhook-id']).toBe(redelivered.id);
    expect(after[4]!.body).toBe(before[0]!.body);
    expect((await deliveriesOf(outcomes, 'recovers')).map((d) => [d.id, d.status])).toEqual([
      [redelivered.id, 'succeeded'],
      [dead.id, 'dead'],
    ]);
  });
});

describe('gates', () => {
  async function createUpdate(target: Ref, dryRun = false): Promise<string> {
    const kind = dryRun ? 'preview' : 'update';
    return ok(await wire.call('POST', `${stackPath(target)}/${kind}`, { auth: asAlice(), body: programRequest(target, dryRun) })).updateID;
  }
  const start = (target: Ref, updateId: string) => wire.call('POST', `${stackPath(target)}/update/${updateId}`, { auth: asAlice(), body: { tags: {} } });

  it('refuses an update a gate denies before the lease is taken, and lets the same update start once it allows', async () => {
    const gated = await newStack('gated');
    await addHook(gated, { name: 'release-freeze', url: `${receiver.url}/gate/freeze`, secret: SIGNING_SECRET, gate: true });
    await receiver.setGate('freeze', { allow: false, message: 'frozen for the release' });
    const updateId = await createUpdate(gated);

    const refused = await start(gated, updateId);
    const stack = ok(await wire.call('GET', stackPath(gated), { auth: asAlice() }));
    const status = ok(await wire.call('GET', `${stackPath(gated)}/update/${updateId}`, { auth: asAlice() }));
    const preview = await createUpdate(gated, true);
    const previewStarted = await start(gated, preview);
    const [asked] = await receivedAt('/gate/freeze', 1);

    expect(failed(refused, 412)).toBe('Gate release-freeze denied the update: frozen for the release');
    expect(stack.activeUpdate).toBe('');
    expect(status.status).toBe('not started');
    expect(previewStarted.status).toBe(200);
    expect(asked!.headers['pulumi-webhook-kind']).toBe('update_gate');
    expect(verifySignature(SIGNING_SECRET, asked!.body, asked!.headers['pulumi-webhook-signature'] as string)).toBe(true);
    expect(JSON.parse(asked!.body)).toMatchObject({ event: 'update_gate', stackName: 'gated', updateId, kind: 'update', isPreview: false });
    expect((await receiver.received()).filter((r) => r.path === '/gate/freeze')).toHaveLength(1);

    await receiver.setGate('freeze', { allow: true });
    const started = ok(await start(gated, updateId));
    const held = ok(await wire.call('GET', stackPath(gated), { auth: asAlice() }));
    ok(await wire.call('POST', `${stackPath(gated)}/update/${updateId}/complete`, { auth: { updateToken: started.token }, body: { status: 'succeeded' } }));
    await update(gated);

    expect(held.activeUpdate).toBe(updateId);
  });

  it('fails closed when a gate cannot answer, unless the gate was added with failOpen', async () => {
    const target = await newStack('gate-down');
    await addHook(target, { name: 'broken', url: `${receiver.url}/dead/gate-down`, gate: true });

    const refused = await start(target, await createUpdate(target));
    ok(await wire.call('DELETE', `${hooksOf(target)}/broken`, { auth: asAlice() }), 204);
    await addHook(target, { name: 'broken', url: `${receiver.url}/dead/gate-down`, gate: true, failOpen: true });
    const allowed = await start(target, await createUpdate(target));

    expect(failed(refused, 412)).toMatch(/^Gate broken could not decide \(answered 500\), so the update was refused\..*--fail-open/);
    expect(allowed.status).toBe(200);
  });

  it('asks a Lambda gate with InvocationType RequestResponse and refuses on its deny', async () => {
    const target = await newStack('lambda-gate');
    await addHook(target, { name: 'keeper', lambdaArn: arn('gatekeeper'), gate: true });

    const refused = await start(target, await createUpdate(target));

    expect(failed(refused, 412)).toBe('Gate keeper denied the update: lambda says no');
    expect(lambda.invocations.filter((i) => i.functionName === arn('gatekeeper'))).toMatchObject([
      { invocationType: 'RequestResponse', payload: { kind: 'update_gate', payload: { event: 'update_gate', stackName: 'lambda-gate' } } },
    ]);
  });
});

describe('secrets', () => {
  it('never puts a signing secret or a config secret in a delivery, a Lambda payload or the stored hook data', async () => {
    const received = await receiver.received();
    const stored = filesUnder(join(dataDir, 'hooks'));
    const texts = [
      ...received.map((r) => `${r.path} ${JSON.stringify(r.headers)} ${r.body}`),
      ...lambda.invocations.map((i) => i.raw),
      ...stored.map((f) => f.text),
    ];

    // The scan covers real traffic: updates carrying the secret config, signed deliveries, and their records.
    expect(configCiphertexts.length).toBeGreaterThan(5);
    expect(received.filter((r) => r.headers['pulumi-webhook-signature']).length).toBeGreaterThan(1);
    expect(stored.some((f) => f.path.includes('deliveries'))).toBe(true);
    for (const text of texts) {
      expect(text).not.toContain(SIGNING_SECRET);
      expect(text).not.toContain(CONFIG_SECRET);
      for (const ciphertext of configCiphertexts) expect(text).not.toContain(ciphertext);
    }
  });
});

describe('SSRF guard without STACKYARD_HOOKS_ALLOW_PRIVATE', () => {
  const adminToken = 'ssrf-admin-token-0123456789';
  let strictDir: string;
  let strict: ServeProcess;
  let strictWire: PulumiWire;
  const admin = { token: adminToken };

  beforeAll(async () => {
    strictDir = mkdtempSync(join(tmpdir(), 'stackyard-hooks-ssrf-'));
    // A hook naming this machine, registered while private targets were allowed; then the server runs without.
    const permissive = await startServe({ storage: 'local', dataDir: strictDir, adminToken, env: fastHookEnv({ STACKYARD_HOOKS_ALLOW_PRIVATE: 'true' }) });
    const permissiveWire = new PulumiWire(permissive.url);
    ok(await permissiveWire.call('POST', '/api/orgs', { auth: admin, body: { name: 'edge' } }), 201);
    ok(await permissiveWire.call('POST', hooksOf('edge'), { auth: admin, body: { name: 'internal', url: `https://127.0.0.1:${receiver.port}/ok/ssrf` } }), 201);
    permissiveWire.close();
    await permissive.stop();
    strict = await startServe({ storage: 'local', dataDir: strictDir, adminToken, env: fastHookEnv({ STACKYARD_HOOKS_ALLOW_PRIVATE: '' }) });
    strictWire = new PulumiWire(strict.url);
  });

  afterAll(async () => {
    strictWire?.close();
    await strict?.stop();
    if (strictDir) rmSync(strictDir, { recursive: true, force: true });
  });

  it.each([
    [`http://127.0.0.1:9/hook`, /must use https:\/\//],
    ['https://127.0.0.1/hook', /'127\.0\.0\.1' is a private, loopback or link-local address/],
    ['https://10.1.2.3/hook', /'10\.1\.2\.3' is a private/],
    ['https://169.254.169.254/latest/meta-data/', /'169\.254\.169\.254' is a private/],
    ['https://[::1]/hook', /'::1' is a private/],
    ['https://[fd00:ec2::254]/hook', /'fd00:ec2::254' is a private/],
    ['https://[::ffff:127.0.0.1]/hook', /is a private/],
    ['https://0x7f000001/hook', /'127\.0\.0\.1' is a private/],
    ['https://localhost/hook', /'localhost' is a private/],
    ['https://metadata.google.internal/hook', /'metadata\.google\.internal' is a private/],
  ])('refuses to add a hook that calls %s', async (url, message) => {
    const response = await strictWire.call('POST', hooksOf('edge'), { auth: admin, body: { name: 'probe', url } });

    expect(failed(response, 400)).toMatch(message);
  });

  it('accepts a public https URL (the refusals are about the address)', async () => {
    const added = ok(await strictWire.call('POST', hooksOf('edge'), { auth: admin, body: { name: 'public', url: 'https://ci.example.com/hook', active: false } }), 201);

    expect(added.destination).toMatchObject({ kind: 'https', url: 'https://ci.example.com/hook' });
  });

  it('refuses, at delivery, a stored hook whose host is a private address', async () => {
    const ping: Delivery = ok(await strictWire.call('POST', `${hooksOf('edge')}/internal/ping`, { auth: admin }));

    expect(ping.status).toBe('dead');
    expect(ping.attempts).toHaveLength(1);
    expect(ping.attempts[0]!.error).toMatch(/^refused: .*127\.0\.0\.1/);
    expect((await receiver.received()).filter((r) => r.path === '/ok/ssrf')).toEqual([]);
  });
});
