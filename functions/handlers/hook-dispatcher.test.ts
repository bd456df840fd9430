import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@aws-lambda-powertools/logger';
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import type { Context, DynamoDBStreamEvent, ScheduledEvent } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAwsStorage } from '../../shared/adapters/aws/index.js';
import { createServices } from '../../shared/core/compose/create-services.js';
import type { Principal } from '../../shared/core/kernel/principal.js';
import type { Services } from '../../shared/core/compose/types.js';
import type { Storage } from '../../shared/ports/index.js';
import { applyEnv, startAwsStandIns, type AwsStandIns } from '../../test/support/aws-stand-ins.js';
import { startLambdaStandIn, type LambdaStandIn } from '../../test/support/lambda-stand-in.js';
import { createHookDispatcherHandler, type HookDispatcherSetup } from '../hook-dispatcher.js';
import { handler } from './hook-dispatcher.js';

const ARN = 'arn:aws:lambda:us-east-1:123456789012:function:ci-notify';
const SECRET = 'dispatcher-signing-secret-0123';
/** Chat webhook URLs carry their credential in the path; it must never reach a log line. */
const URL_CREDENTIAL = 'T0AAA-B0BBB-path-credential-7f3a';
const ADMIN_TOKEN = 'dispatcher-test-admin-token';
const ref = { org: 'acme', project: 'web', stack: 'prod' };

let standIns: AwsStandIns;
let lambda: LambdaStandIn;
let restoreEnv: () => void;

beforeAll(async () => {
  [standIns, lambda] = await Promise.all([startAwsStandIns(), startLambdaStandIn({ 'ci-notify': () => null })]);
  restoreEnv = applyEnv({
    ...standIns.env,
    AWS_ENDPOINT_URL_LAMBDA: lambda.endpoint,
    STACKYARD_HOOK_FUNCTION_ARNS: ARN,
    STACKYARD_DEPLOYMENT: 'Stackyard-test',
  });
});
afterAll(async () => {
  restoreEnv?.();
  await Promise.allSettled([standIns?.stop(), lambda?.stop()]);
});

interface World {
  storage: Storage;
  services: Services;
  alice: Principal;
}

/** Services on the AWS adapters over the stand-ins (one table per test), with alice an administrator of acme. */
async function world(table: string): Promise<World> {
  const storage = createAwsStorage({ table, bucket: standIns.bucket, kmsKeyId: standIns.kmsKeyId });
  const services = createServices(storage, {
    serviceUrl: 'https://stackyard.example.com',
    hooks: { allowPrivate: true, allowedLambdaArns: [ARN] },
  });
  await services.identity.ensureAdmin('admin', ADMIN_TOKEN);
  const admin = await services.identity.authenticate(ADMIN_TOKEN);
  await services.identity.createUser(admin, { login: 'alice' });
  await services.identity.createOrg(admin, 'acme');
  await services.identity.addMember(admin, 'acme', 'alice', 'admin');
  const { token } = await services.identity.createToken(admin, { login: 'alice', description: 'test' });
  return { storage, services, alice: await services.identity.authenticate(token) };
}

/**
 * The dispatcher's clock in the timing tests: it moves only when the test (or the receiver) moves it, so how long
 * storage calls take on a loaded machine cannot change what is due or when a run stops. With the real clock a
 * retry 50 ms out came due within the first run whenever its own storage calls took longer than that.
 */
function manualClock(start = Date.now()) {
  let time = start;
  return {
    now: () => time,
    advance(ms: number) {
      time += ms;
    },
  };
}

/** A Lambda context whose remaining time runs down from `remainingMs` on `clock` (default: the real one). */
function lambdaContext(remainingMs: number, clock: () => number = Date.now): Context {
  const deadline = clock() + remainingMs;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: 'stackyard-hook-dispatcher',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:stackyard-hook-dispatcher',
    memoryLimitInMB: '512',
    awsRequestId: `req-${Math.random().toString(16).slice(2)}`,
    logGroupName: '/stackyard/test/functions/HookDispatcher',
    logStreamName: 'test',
    getRemainingTimeInMillis: () => deadline - clock(),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

/** The batch Lambda's stream poller passes for outbox inserts (KEYS_ONLY view, as the infra configures it). */
function streamEvent(eventIds: string[]): DynamoDBStreamEvent {
  return {
    Records: eventIds.map((id, i) => ({
      eventID: `record-${i}`,
      eventName: 'INSERT',
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: 'us-east-1',
      dynamodb: {
        Keys: { pk: { S: `OUTBOX#${id}` }, sk: { S: 'EVENT' } },
        SequenceNumber: String(100 + i),
        SizeBytes: 60,
        StreamViewType: 'KEYS_ONLY',
      },
      eventSourceARN: 'arn:aws:dynamodb:us-east-1:123456789012:table/stackyard/stream/2026-01-01T00:00:00.000',
    })),
  };
}

function scheduledEvent(): ScheduledEvent {
  return {
    version: '0',
    id: 'schedule-1',
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '123456789012',
    time: new Date().toISOString(),
    region: 'us-east-1',
    resources: ['arn:aws:events:us-east-1:123456789012:rule/stackyard-hook-dispatch'],
    detail: {},
  };
}

async function outboxEventIds(table: string): Promise<string[]> {
  const client = new DynamoDBClient({});
  try {
    const { Items } = await client.send(
      new ScanCommand({
        TableName: table,
        FilterExpression: 'begins_with(pk, :outbox)',
        ExpressionAttributeValues: { ':outbox': { S: 'OUTBOX#' } },
      }),
    );
    return (Items ?? []).map((item) => item.pk!.S!.slice('OUTBOX#'.length));
  } finally {
    client.destroy();
  }
}

/**
 * A real HTTP receiver on 127.0.0.1 answering every request with `status`; `onRequest` runs before it answers
 * (the timeout test moves the dispatcher's clock there: each delivery takes that long in the function's time).
 */
async function startReceiver(status: number, onRequest: () => void = () => undefined) {
  const received: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push(Buffer.concat(chunks).toString('utf8'));
      onRequest();
      response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/services/${URL_CREDENTIAL}`,
    received,
    stop: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

describe('hook dispatcher function', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  it('on a stream batch of outbox inserts, delivers the event to a Lambda destination once', async () => {
    const { storage, services, alice } = await world(standIns.table);
    cleanups.push(() => storage.close());
    await services.hooks.add(alice, { org: 'acme' }, { name: 'chat', lambdaArn: ARN, events: ['stack_created'] });
    await services.stacks.create(alice, ref);
    const eventIds = await outboxEventIds(standIns.table);

    const summary = await handler(streamEvent(eventIds), lambdaContext(60_000));
    const again = await handler(scheduledEvent(), lambdaContext(60_000));

    expect(eventIds).toHaveLength(1);
    expect(summary).toEqual({ events: 1, attempts: 1, succeeded: 1, deadLettered: 0 });
    expect(again).toEqual({ events: 0, attempts: 0, succeeded: 0, deadLettered: 0 });
    expect(lambda.invocations).toHaveLength(1);
    expect(lambda.invocations[0]).toMatchObject({
      functionName: ARN,
      invocationType: 'Event',
      payload: {
        id: eventIds[0],
        kind: 'stack',
        payload: { event: 'stack_created', organization: { name: 'acme' }, projectName: 'web', stackName: 'prod', action: 'created' },
      },
    });
    const [delivery] = await services.hooks.deliveries(alice, { org: 'acme' }, 'chat');
    expect(delivery).toMatchObject({ id: eventIds[0], status: 'succeeded' });
    expect(delivery!.attempts.map((a) => [a.attempt, a.ok, a.responseCode])).toEqual([[1, true, 202]]);
    expect(await outboxEventIds(standIns.table)).toEqual([]);
  });

  it('retries on the schedule, dead-letters after the last attempt and publishes DeadLetters, logging no secret', async () => {
    const table = await standIns.createTable();
    const { storage, services, alice } = await world(table);
    const receiver = await startReceiver(500);
    cleanups.push(() => storage.close(), receiver.stop);
    await services.hooks.add(alice, { org: 'acme' }, { name: 'ci', url: receiver.url, secret: SECRET });
    await services.stacks.create(alice, ref);
    const clock = manualClock();
    const started = clock.now();
    const setup: HookDispatcherSetup = {
      hooks: storage.hooks,
      keys: storage.keys,
      dispatch: { allowPrivate: true, maxAttempts: 2, baseDelayMs: 50, deliveryTimeoutMs: 2_000, now: clock.now },
      deployment: 'Stackyard-test',
    };
    const dispatcher = createHookDispatcherHandler(new Logger({ serviceName: 'stackyard' }), () => setup);
    // Everything the function prints: Lambda ships stdout and stderr to CloudWatch Logs.
    const output: string[] = [];
    const capture = (chunk: string | Uint8Array) => {
      output.push(String(chunk));
      return true;
    };
    const spies = [vi.spyOn(process.stdout, 'write').mockImplementation(capture), vi.spyOn(process.stderr, 'write').mockImplementation(capture)];
    const stopCapture = () => spies.forEach((spy) => spy.mockRestore());
    cleanups.push(stopCapture);

    const first = await dispatcher(streamEvent(await outboxEventIds(table)), lambdaContext(60_000, clock.now));
    const pending = await services.hooks.deliveries(alice, { org: 'acme' }, 'ci');
    clock.advance(49);
    const early = await dispatcher(scheduledEvent(), lambdaContext(60_000, clock.now));
    clock.advance(1);
    const second = await dispatcher(scheduledEvent(), lambdaContext(60_000, clock.now));
    stopCapture();

    expect(first).toEqual({ events: 1, attempts: 1, succeeded: 0, deadLettered: 0 });
    expect(pending.map((d) => [d.status, d.nextAttemptAt])).toEqual([['pending', started + 50]]);
    expect(early).toEqual({ events: 0, attempts: 0, succeeded: 0, deadLettered: 0 });
    expect(second).toEqual({ events: 0, attempts: 1, succeeded: 0, deadLettered: 1 });
    expect(receiver.received).toHaveLength(2);
    const dead = await storage.hooks.listDeadLetters('acme', 10);
    expect(dead.map((d) => [d.hook, d.status, d.attempts.length])).toEqual([['ci', 'dead', 2]]);
    const lines = output.join('').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const metrics = lines.filter((line) => '_aws' in line);
    expect(metrics).toHaveLength(1);
    expect(metrics[0]).toMatchObject({
      _aws: {
        CloudWatchMetrics: [{ Namespace: 'Stackyard', Dimensions: [['Deployment']], Metrics: [{ Name: 'DeadLetters', Unit: 'Count' }] }],
      },
      Deployment: 'Stackyard-test',
      DeadLetters: 1,
    });
    expect(lines.some((line) => line.level === 'ERROR' && line.hook === 'ci' && line.deliveryId === dead[0]!.id)).toBe(true);
    expect(lines.filter((line) => line.trigger).map((line) => line.trigger)).toEqual(['stream', 'schedule', 'schedule']);
    const logged = output.join('');
    expect(logged).not.toContain(SECRET);
    expect(logged).not.toContain(URL_CREDENTIAL);
    expect(logged).not.toContain('127.0.0.1');
  });

  it('stops taking work before the function timeout and leaves the rest to the next run', async () => {
    const table = await standIns.createTable();
    const { storage, services, alice } = await world(table);
    const clock = manualClock();
    // Each delivery takes 4 s of the function's time.
    const receiver = await startReceiver(204, () => clock.advance(4_000));
    cleanups.push(() => storage.close(), receiver.stop);
    for (const name of ['a', 'b', 'c', 'd']) {
      await services.hooks.add(alice, { org: 'acme' }, { name, url: receiver.url, events: ['stack_created'] });
    }
    await services.stacks.create(alice, ref);
    const deliveryTimeoutMs = 10_000;
    const reserveMs = 5_000;
    const dispatcher = createHookDispatcherHandler(
      new Logger({ serviceName: 'stackyard', logLevel: 'SILENT' }),
      () => ({
        hooks: storage.hooks,
        keys: storage.keys,
        dispatch: { allowPrivate: true, deliveryTimeoutMs, now: clock.now },
        deployment: 'Stackyard-test',
      }),
      { reserveMs },
    );
    // Attempts may start during the first 6 s; one started at the last moment still ends before the timeout. (middy
    // also times the invocation out by the real clock, so these 21 s stay far more than the run takes in real time.)
    const remainingMs = deliveryTimeoutMs + reserveMs + 6_000;

    const started = clock.now();
    const first = await dispatcher(scheduledEvent(), lambdaContext(remainingMs, clock.now));
    const firstMs = clock.now() - started;
    const second = await dispatcher(scheduledEvent(), lambdaContext(60_000, clock.now));

    // Attempts start at 0 and 4 s; at 8 s the run takes no more work and ends.
    expect(first).toEqual({ events: 1, attempts: 2, succeeded: 2, deadLettered: 0 });
    expect(firstMs).toBe(8_000);
    expect(firstMs).toBeLessThan(remainingMs - reserveMs);
    expect(second).toEqual({ events: 0, attempts: 2, succeeded: 2, deadLettered: 0 });
    expect(receiver.received).toHaveLength(4);
    for (const name of ['a', 'b', 'c', 'd']) {
      const deliveries = await services.hooks.deliveries(alice, { org: 'acme' }, name);
      expect(deliveries.map((d) => [d.status, d.attempts.length])).toEqual([['succeeded', 1]]);
    }
  });
});
