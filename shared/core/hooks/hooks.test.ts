
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startLambdaStandIn, type LambdaStandIn } from '../../../test/support/lambda-stand-in.js';
import { ForbiddenError, InvalidInputError, PreconditionFailedError } from '../errors.js';
import { serviceFixture, type ServiceFixture } from '../../../test/support/service-fixture.js';
import { createUpdateService } from '../updates/update-service.js';
import type { Principal } from '../kernel/principal.js';
import type { UpdateService } from '../updates/types.js';
import { dispatchPending } from './dispatcher.js';
import { createHookService, type HookService } from './hook-service.js';
import { sdkLambdaInvoker } from './lambda.js';
import { HEADER_ID, HEADER_KIND, HEADER_SIGNATURE, verifySignature } from './signing.js';
import { isForbiddenAddress, resolveAllowedTarget } from './ssrf.js';
import { postJson } from './transport.js';

const SECRET = 'hook-signing-secret-0123456789';
const ARN = 'arn:aws:lambda:us-east-1:123456789012:function:ci-notify';
const GATE_ARN = 'arn:aws:lambda:us-east-1:123456789012:function:change-gate';
const fast = { baseDelayMs: 5, maxDelayMs: 20, maxWaitMs: 2_000, sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)) };

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A real HTTP receiver on 127.0.0.1: fails the first `failures` requests with 500, then answers `answer`. */
async function startReceiver(failures = 0, answer: (body: string) => { status: number; body?: string; delayMs?: number } = () => ({ status: 204 })) {
  const received: Received[] = [];
  let failed = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ headers: request.headers, body });
      if (failed < failures) {
        failed += 1;
        response.writeHead(500).end('not yet');
        return;
      }
      const reply = answer(body);
      setTimeout(() => {
        if (!response.destroyed) response.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.body ?? '');
      }, reply.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    received,
    stop: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

let lambda: LambdaStandIn;
const gateAnswers: { allow: boolean; message: string }[] = [];
const SDK_ENV = ['AWS_ENDPOINT_URL_LAMBDA', 'AWS_REGION', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'] as const;
const savedEnv = Object.fromEntries(SDK_ENV.map((name) => [name, process.env[name]]));

beforeAll(async () => {
  lambda = await startLambdaStandIn({
    'ci-notify': () => null,
    'change-gate': () => gateAnswers.shift() ?? { allow: true, message: 'default' },
  });
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_LAMBDA: lambda.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
  });
});
afterAll(async () => {
  for (const name of SDK_ENV) {
    if (savedEnv[name] === undefined) delete process.env[name];
    else process.env[name] = savedEnv[name];
  }
  await lambda.stop();
});

describe('hooks', () => {
  let fx: ServiceFixture;
  let alice: Principal;
  let hooks: HookService;
  let updates: UpdateService;
  const stoppers: (() => Promise<void>)[] = [];
  const ref = { org: 'acme', project: 'web', stack: 'prod' };
  /** The SDK's default client, configured only by the environment (as in serve and in Lambda). */
  const invoker = () => sdkLambdaInvoker();

  beforeEach(async () => {
    fx = await serviceFixture({ serviceUrl: 'https://stackyard.example.com' });
    fx.deps.options.hooks = { allowPrivate: true, gateTimeoutMs: 400, deliveryTimeoutMs: 1_000, ...fast };
    alice = await fx.user('alice', ['acme'], 'admin');
    hooks = createHookService(fx.deps);
    updates = createUpdateService(fx.deps);
    await fx.stacks.create(alice, ref);
  });
  afterEach(async () => {
    while (stoppers.length) await stoppers.pop()!();
    await fx.close();
  });

  async function runUpdate(kind: 'update' | 'preview' | 'destroy' = 'update') {
    const { updateId } = await updates.create(alice, ref, { kind, dryRun: kind === 'preview' });
    const started = await updates.start(alice, ref, updateId, {});
    await updates.complete(ref, updateId, started.token, 'succeeded');
    return updateId;
  }

  it('delivers signed, filtered events after retries: one success recorded, and no secret anywhere', async () => {
    const receiver = await startReceiver(2);
    stoppers.push(receiver.stop);
    await hooks.add(alice, { org: 'acme' }, { name: 'ci', url: receiver.url, secret: SECRET, events: ['update_succeeded'] });
    await runUpdate('update');
    await runUpdate('preview');

    const summary = await dispatchPending(fx.storage.hooks, fx.storage.keys, { ...fx.deps.options.hooks });

    expect(summary.succeeded).toBe(1);
    expect(receiver.received).toHaveLength(3);
    for (const { headers, body } of receiver.received) {
      expect(verifySignature(SECRET, body, headers[HEADER_SIGNATURE.toLowerCase()] as string)).toBe(true);
      expect(headers[HEADER_KIND.toLowerCase()]).toBe('stack_update');
    }
    const payload = JSON.parse(receiver.received[2]!.body);
    expect(payload).toMatchObject({
      event: 'update_succeeded',
      user: { name: 'alice' },
      organization: { name: 'acme' },
      projectName: 'web',
      stackName: 'prod',
      updateUrl: 'https://stackyard.example.com/acme/web/prod/updates/1',
      kind: 'update',
      result: 'succeeded',
      isPreview: false,
    });
    const deliveries = await hooks.deliveries(alice, { org: 'acme' }, 'ci');
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]!.id).toBe(receiver.received[0]!.headers[HEADER_ID.toLowerCase()]);
    expect(deliveries[0]!.status).toBe('succeeded');
    expect(deliveries[0]!.attempts.map((a) => [a.attempt, a.ok, a.responseCode])).toEqual([
      [1, false, 500],
      [2, false, 500],
      [3, true, 204],
    ]);
    expect(JSON.stringify(await hooks.list(alice, { org: 'acme' }))).not.toContain(SECRET);
    expect(receiver.received.some((r) => r.body.includes(SECRET))).toBe(false);
    // Nowhere in storage: not in deliveries, and not in the hook record, which holds it sealed.
    const stored = Object.entries(await fx.snapshot());
    expect(stored.filter(([path]) => path.includes('/hooks/deliveries/')).length).toBeGreaterThan(0);
    expect(stored.filter(([path]) => path.includes('/hooks/defs/')).length).toBe(1);
    for (const [, content] of stored) expect(Buffer.from(content, 'base64').toString()).not.toContain(SECRET);
  });

  it('two dispatchers running at once deliver each attempt once', async () => {
    const receiver = await startReceiver(1);
    stoppers.push(receiver.stop);
    await hooks.add(alice, { org: 'acme' }, { name: 'ci', url: receiver.url, events: ['update_succeeded'] });
    for (let i = 0; i < 3; i++) await runUpdate('update');

    const [a, b] = await Promise.all([
      dispatchPending(fx.storage.hooks, fx.storage.keys, { ...fx.deps.options.hooks }),
      dispatchPending(fx.storage.hooks, fx.storage.keys, { ...fx.deps.options.hooks }),
    ]);

    expect(a.succeeded + b.succeeded).toBe(3);
    expect(a.attempts + b.attempts).toBe(4);
    expect(receiver.received).toHaveLength(4);
    const ids = receiver.received.map((r) => r.headers['pulumi-webhook-id']);
    expect(new Set(ids).size).toBe(3);
  });

  it('dead-letters a delivery to a receiver that never answers', async () => {
    const receiver = await startReceiver();
    await receiver.stop();
    await hooks.add(alice, { stack: ref }, { name: 'gone', url: receiver.url });
    await runUpdate('update');

    const summary = await dispatchPending(fx.storage.hooks, fx.storage.keys, { ...fx.deps.options.hooks, maxAttempts: 3 });

    expect(summary.deadLettered).toBeGreaterThanOrEqual(1);
    const dead = await fx.storage.hooks.listDeadLetters('acme', 10);
    expect(dead.length).toBeGreaterThanOrEqual(1);
    expect(dead.every((d) => d.attempts.length === 3 && d.attempts.every((a) => !a.ok && a.error))).toBe(true);
    expect(await fx.storage.hooks.dueDeliveries(Date.now() + 3_600_000, 10)).toEqual([]);
  });

  it('invokes Lambda destinations asynchronously through the SDK and the Invoke API', async () => {
    fx.deps.options.hooks = { ...fx.deps.options.hooks, lambda: invoker() };
    hooks = createHookService(fx.deps);
    fx.advance(1_000);
    await hooks.add(alice, { org: 'acme' }, { name: 'notify', lambdaArn: ARN, events: ['stack_created'] });
    await fx.stacks.create(alice, { org: 'acme', project: 'web', stack: 'staging' });
    const before = lambda.invocations.length;

    const summary = await dispatchPending(fx.storage.hooks, fx.storage.keys, { ...fx.deps.options.hooks });

    expect(summary.succeeded).toBe(1);
    const invocation = lambda.invocations.slice(before).find((i) => i.functionName === ARN)!;
    expect(invocation.invocationType).toBe('Event');
    expect(invocation.payload).toMatchObject({ kind: 'stack', payload: { event: 'stack_created', stackName: 'staging', action: 'created' } });
    const [delivery] = await hooks.deliveries(alice, { org: 'acme' }, 'notify');
    expect(delivery!.attempts[0]).toMatchObject({ ok: true, responseCode: 202 });
  });

  it('gates: a deny refuses the start before the lease, an allow lets it start; Lambda and HTTPS', async () => {
    fx.deps.options.hooks = { ...fx.deps.options.hooks, lambda: invoker() };
    updates = createUpdateService(fx.deps);
    hooks = createHookService(fx.deps);
    await hooks.add(alice, { stack: ref }, { name: 'change-window', lambdaArn: GATE_ARN, gate: true });
    gateAnswers.push({ allow: false, message: 'outside the change window' });
    const { updateId } = await updates.create(alice, ref, { kind: 'update', dryRun: false });

    const denied = updates.start(alice, ref, updateId, {});

    await expect(denied).rejects.toBeInstanceOf(PreconditionFailedError);
    await expect(denied).rejects.toThrow('Gate change-window denied the update: outside the change window');
    const stack = await fx.storage.stacks.get(ref);
    expect(await fx.storage.leases.current(stack.id)).toBeUndefined();
    expect((await fx.storage.updates.get(stack.id, updateId)).status).toBe('not-started');
    expect(lambda.invocations.at(-1)).toMatchObject({ invocationType: 'RequestResponse' });

    gateAnswers.push({ allow: true, message: 'ok' });
    const started = await updates.start(alice, ref, updateId, {});
    expect(started.version).toBe(1);
    expect((await fx.storage.leases.current(stack.id))?.updateId).toBe(updateId);
    await updates.complete(ref, updateId, started.token, 'succeeded');

    const receiver = await startReceiver(0, () => ({ status: 200, body: JSON.stringify({ allow: false, message: 'tests are red' }) }));
    stoppers.push(receiver.stop);
    await hooks.add(alice, { org: 'acme' }, { name: 'ci-gate', url: receiver.url, secret: SECRET, gate: true });
    const second = await updates.create(alice, ref, { kind: 'update', dryRun: false });
    await expect(updates.start(alice, ref, second.updateId, {})).rejects.toThrow('Gate ci-gate denied the update: tests are red');
    expect(verifySignature(SECRET, receiver.received[0]!.body, receiver.received[0]!.headers['pulumi-webhook-signature'] as string)).toBe(true);
  });

  it('gates that time out fail closed, unless added with --fail-open; dry runs are not gated', async () => {
    const slow = await startReceiver(0, () => ({ status: 200, body: '{"allow":true}', delayMs: 2_000 }));
    stoppers.push(slow.stop);
    await hooks.add(alice, { stack: ref }, { name: 'slow', url: slow.url, gate: true });
    const { updateId } = await updates.create(alice, ref, { kind: 'update', dryRun: false });

    await expect(updates.start(alice, ref, updateId, {})).rejects.toThrow(/Gate slow could not decide \(.*timed out/);
    const stack = await fx.storage.stacks.get(ref);
    expect(await fx.storage.leases.current(stack.id)).toBeUndefined();

    const preview = await updates.create(alice, ref, { kind: 'preview', dryRun: true });
    await expect(updates.start(alice, ref, preview.updateId, {})).resolves.toMatchObject({ version: 0 });

    await hooks.remove(alice, { stack: ref }, 'slow');
    await hooks.add(alice, { stack: ref }, { name: 'slow-open', url: slow.url, gate: true, failOpen: true });
    await expect(updates.start(alice, ref, updateId, {})).resolves.toMatchObject({ version: 1 });
  });

  it('pings and redelivers, recording each in the delivery log', async () => {
    const receiver = await startReceiver(1);
    stoppers.push(receiver.stop);
    await hooks.add(alice, { org: 'acme' }, { name: 'ci', url: receiver.url, secret: SECRET, events: ['stack_deleted'] });
    const failedPing = await hooks.ping(alice, { org: 'acme' }, 'ci');
    expect(failedPing).toMatchObject({ kind: 'ping', status: 'dead' });
    fx.advance(1_000);

    const redelivered = await hooks.redeliver(alice, { org: 'acme' }, 'ci', failedPing.id);

    expect(redelivered).toMatchObject({ status: 'succeeded', redeliveryOf: failedPing.id, kind: 'ping' });
    expect(receiver.received.map((r) => r.headers['pulumi-webhook-kind'])).toEqual(['ping', 'ping']);
    expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body);
    expect((await hooks.deliveries(alice, { org: 'acme' }, 'ci')).map((d) => d.id)).toEqual([redelivered.id, failedPing.id]);
    await expect(hooks.redeliver(alice, { org: 'acme' }, 'ci', 'nope')).rejects.toThrow(/not found/);
  });

  it('attempts its own ping and redelivery even when the background dispatcher looks for due deliveries at once', async () => {
    const receiver = await startReceiver(1);
    stoppers.push(receiver.stop);
    const rivalClaims: (string | undefined)[] = [];
    const store = fx.deps.storage.hooks;
    const racing = Object.create(store) as typeof store;
    racing.createDelivery = async (delivery) => {
      const created = await store.createDelivery(delivery);
      const due = (await store.dueDeliveries(fx.deps.now(), 100)).filter((d) => d.id === created.delivery.id);
      for (const d of due) rivalClaims.push((await store.claimDelivery(d, d.revision, fx.deps.now(), fx.deps.now() + 60_000))?.id);
      return created;
    };
    const pinging = createHookService({ ...fx.deps, storage: { ...fx.deps.storage, hooks: racing } });
    await pinging.add(alice, { org: 'acme' }, { name: 'ci', url: receiver.url, secret: SECRET, events: ['stack_deleted'] });

    const ping = await pinging.ping(alice, { org: 'acme' }, 'ci');
    fx.advance(1_000);
    const redelivered = await pinging.redeliver(alice, { org: 'acme' }, 'ci', ping.id);

    expect(rivalClaims).toEqual([]);
    expect(ping).toMatchObject({ status: 'dead', attempts: [{ attempt: 1, ok: false, responseCode: 500 }] });
    expect(redelivered).toMatchObject({ status: 'succeeded', attempts: [{ attempt: 1, ok: true }] });
    expect(redelivered.claimedUntil).toBeUndefined();
    expect(receiver.received).toHaveLength(2);
  });

  it('authorizes like the other services and validates names, URLs, ARNs and events', async () => {
    const mallory = await fx.user('mallory', ['evil']);
    await expect(hooks.list(mallory, { org: 'acme' })).rejects.toThrow(/not found/);
    await expect(hooks.add(mallory, { stack: ref }, { name: 'x', url: 'https://example.com' })).rejects.toThrow(/not found/);
    const member = await fx.user('member', ['acme']);
    await expect(hooks.add(member, { org: 'acme' }, { name: 'x', url: 'https://example.com' })).rejects.toBeInstanceOf(ForbiddenError);
    await expect(hooks.list(member, { org: 'acme' })).rejects.toBeInstanceOf(ForbiddenError);
    await expect(hooks.add(member, { stack: ref }, { name: 'member-hook', url: 'https://ci.example.com/hook' })).resolves.toMatchObject({ name: 'member-hook' });
    const strict = createHookService({ ...fx.deps, options: { ...fx.deps.options, hooks: { allowPrivate: false } } });
    for (const request of [
      { name: 'bad name!', url: 'https://example.com' },
      { name: 'h', url: 'http://example.com/hook' },
      { name: 'h', url: 'https://127.0.0.1/hook' },
      { name: 'h', url: 'https://[::1]/hook' },
      { name: 'h', url: 'https://169.254.169.254/latest' },
      { name: 'h', url: 'https://localhost/hook' },
      { name: 'h', url: 'https://user:pw@example.com/hook' },
      { name: 'h', lambdaArn: 'arn:aws:lambda:us-east-1:1:function:x' },
      { name: 'h', url: 'https://example.com', events: ['stack_exploded'] },
      { name: 'h', url: 'https://example.com', lambdaArn: ARN },
      { name: 'h', url: 'https://example.com', failOpen: true },
    ]) {
      await expect(strict.add(alice, { org: 'acme' }, request)).rejects.toBeInstanceOf(InvalidInputError);
    }
    await strict.add(alice, { org: 'acme' }, { name: 'ok', url: 'https://ci.example.com/hook' });
    await expect(strict.add(alice, { org: 'acme' }, { name: 'ok', url: 'https://ci.example.com/hook' })).rejects.toThrow(/already exists/);
  });
});

describe('SSRF guard', () => {
  it('refuses loopback, private, link-local, metadata and unique-local targets, literal or resolved', async () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fc00::1', 'fd00:ec2::254', 'fe80::1', '::ffff:127.0.0.1', '::ffff:a9fe:a9fe']) {
      expect(isForbiddenAddress(address), address).toBe(true);
    }
    for (const address of ['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111']) {
      expect(isForbiddenAddress(address), address).toBe(false);
    }
    await expect(resolveAllowedTarget('localhost', false)).rejects.toThrow(/internal address/);
    await expect(resolveAllowedTarget('localhost', true)).resolves.toMatchObject({ address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/) });
  });

  it('never sends a request to a refused address, and does not follow redirects', async () => {
    let hits = 0;
    const server = createServer((_request, response) => {
      hits += 1;
      response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      for (const url of [`https://127.0.0.1:${port}/`, `https://localhost:${port}/`, `https://[::1]:${port}/`, 'https://10.0.0.1/', 'https://169.254.169.254/', 'https://[fc00::1]/']) {
        const result = await postJson(url, '{}', {}, { timeoutMs: 500, allowPrivate: false });
        expect(result.ok, url).toBe(false);
        expect(result.error, url).toMatch(/^refused: /);
      }
      expect(hits).toBe(0);
      const redirected = await postJson(`http://127.0.0.1:${port}/`, '{}', {}, { timeoutMs: 500, allowPrivate: true });
      expect(redirected).toMatchObject({ ok: false, responseCode: 302, error: 'redirects are not followed' });
      expect(hits).toBe(1);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});


