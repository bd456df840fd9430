import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { handler, type HookInvocation } from '../../examples/ci-hook/index.js';
import { PreconditionFailedError } from '../../shared/core/errors.js';
import { dispatchPending } from '../../shared/core/hooks/dispatcher.js';
import { createHookService } from '../../shared/core/hooks/hook-service.js';
import { serviceFixture, type ServiceFixture } from '../support/service-fixture.js';
import { createUpdateService } from '../../shared/core/updates/update-service.js';
import { startLambdaStandIn, type LambdaStandIn } from '../support/lambda-stand-in.js';

/**
 * The webhook receiver, a separate Node process: answers 500 under /fail and 200 elsewhere, and prints every
 * request as one JSON line (after a first line with its port).
 */
const RECEIVER = `
import { createServer } from 'node:http';
const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    console.log(JSON.stringify({ path: request.url, contentType: request.headers['content-type'], body }));
    response.writeHead(request.url.startsWith('/fail') ? 500 : 200).end('ok');
  });
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
`;

interface Received {
  path: string;
  contentType: string;
  body: string;
}

const SLACK_PATH = '/services/T0001/B0001/slack-path-credential';
const ARN = 'arn:aws:lambda:us-east-1:123456789012:function:ci-hook';
const CONFIG = ['SLACK_WEBHOOK_URL', 'WEBHOOK_URL', 'FROZEN_STACKS', 'FREEZE_REASON'] as const;
const SDK = { AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test' };

let receiverProcess: ChildProcessWithoutNullStreams;
let base: string;
const received: Received[] = [];
let lambda: LambdaStandIn;
const saved = Object.fromEntries([...CONFIG, 'AWS_ENDPOINT_URL_LAMBDA', ...Object.keys(SDK)].map((name) => [name, process.env[name]]));

beforeAll(async () => {
  receiverProcess = spawn(process.execPath, ['--input-type=module', '-e', RECEIVER]);
  const lines = createInterface({ input: receiverProcess.stdout });
  base = await new Promise<string>((resolve, reject) => {
    receiverProcess.once('error', reject);
    lines.on('line', (line) => {
      const message = JSON.parse(line) as { port?: number } & Received;
      if (message.port) resolve(`http://127.0.0.1:${message.port}`);
      else received.push(message);
    });
  });
  lambda = await startLambdaStandIn({ 'ci-hook': (event) => handler(event as HookInvocation) });
  Object.assign(process.env, SDK, { AWS_ENDPOINT_URL_LAMBDA: lambda.endpoint });
});
afterAll(async () => {
  receiverProcess?.kill();
  await lambda?.stop();
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});
beforeEach(() => {
  received.length = 0;
  for (const name of CONFIG) delete process.env[name];
});

/** Waits until the receiver process has printed `count` requests (they arrive over its stdout pipe). */
async function receivedRequests(count: number): Promise<Received[]> {
  for (let waited = 0; received.length < count && waited < 5_000; waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return [...received];
}

const updateSucceeded: HookInvocation = {
  id: '1767225600000-0123456789abcdef',
  kind: 'stack_update',
  payload: {
    event: 'update_succeeded',
    user: { name: 'alice' },
    organization: { name: 'acme' },
    projectName: 'web',
    stackName: 'prod',
    updateUrl: 'https://stackyard.example.com/acme/web/prod/updates/7',
    kind: 'update',
    result: 'succeeded',
    resourceChanges: { create: 2, update: 1, same: 10 },
  },
};

const gateCall = (stack: string): HookInvocation => ({
  id: 'gate-0123456789abcdef',
  kind: 'update_gate',
  payload: { event: 'update_gate', user: { name: 'alice' }, organization: { name: 'acme' }, projectName: 'web', stackName: stack, kind: 'update' },
});

describe('examples/ci-hook', () => {
  it('posts one line about the update to Slack and the fields to a generic JSON webhook', async () => {
    process.env.SLACK_WEBHOOK_URL = `${base}${SLACK_PATH}`;
    process.env.WEBHOOK_URL = `${base}/ci/trigger`;

    const result = await handler(updateSucceeded);

    expect(result).toEqual({ posted: 2 });
    const requests = await receivedRequests(2);
    const text = 'acme/web/prod: update succeeded by alice (create 2, update 1) https://stackyard.example.com/acme/web/prod/updates/7';
    expect(requests.map((r) => [r.path, r.contentType, JSON.parse(r.body)]).sort()).toEqual(
      [
        ['/ci/trigger', 'application/json', {
          text,
          id: updateSucceeded.id,
          kind: 'stack_update',
          event: 'update_succeeded',
          stack: 'acme/web/prod',
          result: 'succeeded',
          updateUrl: 'https://stackyard.example.com/acme/web/prod/updates/7',
        }],
        [SLACK_PATH, 'application/json', { text }],
      ].sort(),
    );
  });

  it('fails the invocation when the webhook refuses, without naming its URL, so Lambda retries it', async () => {
    process.env.SLACK_WEBHOOK_URL = `${base}/fail${SLACK_PATH}`;

    const failure = handler(updateSucceeded);

    await expect(failure).rejects.toThrow('The webhook answered 500.');
    await expect(failure).rejects.not.toThrow(/slack-path-credential|127\.0\.0\.1/);
    expect(await receivedRequests(1)).toHaveLength(1);
  });

  it('as a gate, denies updates of stacks matching FROZEN_STACKS and allows the rest, posting nothing', async () => {
    process.env.FROZEN_STACKS = 'other/*/*, acme/*/prod';
    process.env.FREEZE_REASON = 'release freeze until Monday';
    process.env.SLACK_WEBHOOK_URL = `${base}${SLACK_PATH}`;

    const prod = await handler(gateCall('prod'));
    const staging = await handler(gateCall('staging'));

    expect(prod).toEqual({ allow: false, message: 'acme/web/prod is frozen (acme/*/prod): release freeze until Monday' });
    expect(staging).toEqual({ allow: true, message: 'acme/web/staging is not frozen' });
    expect(received).toEqual([]);
  });

  describe('deployed as a Stackyard hook (Lambda Invoke API stand-in, local storage)', () => {
    let fx: ServiceFixture;
    beforeEach(async () => {
      fx = await serviceFixture({ serviceUrl: 'https://stackyard.example.com' });
      fx.deps.options.hooks = { allowPrivate: true, allowedLambdaArns: [ARN] };
    });
    afterEach(async () => fx.close());

    it('receives update events from the dispatcher and, as a gate, refuses to start an update of a frozen stack', async () => {
      process.env.SLACK_WEBHOOK_URL = `${base}${SLACK_PATH}`;
      process.env.FROZEN_STACKS = 'acme/*/prod';
      const alice = await fx.user('alice', ['acme'], 'admin');
      const hooks = createHookService(fx.deps);
      const updates = createUpdateService(fx.deps);
      const staging = { org: 'acme', project: 'web', stack: 'staging' };
      const prod = { org: 'acme', project: 'web', stack: 'prod' };
      await fx.stacks.create(alice, staging);
      await fx.stacks.create(alice, prod);
      await hooks.add(alice, { org: 'acme' }, { name: 'chat', lambdaArn: ARN, events: ['update_succeeded'] });
      await hooks.add(alice, { org: 'acme' }, { name: 'freeze', lambdaArn: ARN, gate: true });

      const { updateId } = await updates.create(alice, staging, { kind: 'update', dryRun: false });
      const started = await updates.start(alice, staging, updateId, {});
      await updates.complete(staging, updateId, started.token, 'succeeded');
      const summary = await dispatchPending(fx.storage.hooks, fx.storage.keys, fx.deps.options.hooks);
      const frozen = await updates.create(alice, prod, { kind: 'update', dryRun: false });
      const refused = updates.start(alice, prod, frozen.updateId, {});

      expect(summary).toMatchObject({ attempts: 1, succeeded: 1 });
      const [message] = await receivedRequests(1);
      expect(message!.path).toBe(SLACK_PATH);
      expect(JSON.parse(message!.body)).toEqual({
        text: 'acme/web/staging: update succeeded by alice https://stackyard.example.com/acme/web/staging/updates/1',
      });
      await expect(refused).rejects.toBeInstanceOf(PreconditionFailedError);
      await expect(refused).rejects.toThrow('Gate freeze denied the update: acme/web/prod is frozen (acme/*/prod)');
      expect(lambda.invocations.filter((i) => i.invocationType === 'RequestResponse').map((i) => i.payload)).toEqual([
        expect.objectContaining({ kind: 'update_gate', payload: expect.objectContaining({ stackName: 'staging' }) }),
        expect.objectContaining({ kind: 'update_gate', payload: expect.objectContaining({ stackName: 'prod' }) }),
      ]);
    });
  });
});
