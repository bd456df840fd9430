import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { Template } from 'aws-cdk-lib/assertions';
import { StreamViewType } from 'aws-cdk-lib/aws-dynamodb';
import { describe, expect, it } from 'vitest';
import { outboxPuts } from '../../shared/adapters/aws/dynamodb-hook-store.js';
import { createAwsStorage } from '../../shared/adapters/aws/index.js';
import { applyEnv, startAwsStandIns } from '../../test/support/aws-stand-ins.js';
import { startLambdaStandIn } from '../../test/support/lambda-stand-in.js';
import { ApiFunctions } from '../lib/constructs/api-functions.js';
import { DataKey } from '../lib/constructs/data-key.js';
import { HookDispatcher } from '../lib/constructs/hook-dispatcher.js';
import { StateBucket } from '../lib/constructs/state-bucket.js';
import { StateTable } from '../lib/constructs/state-table.js';
import { hookWiring, storageWiring } from '../lib/wiring.js';
import { ECHO_HANDLER, FIXTURE_WIRING, bareStack, testApp } from './support.js';

const INVOKE_DISPATCHER = fileURLToPath(new URL('./fixtures/invoke-dispatcher.mjs', import.meta.url));

describe('NodejsFunction bundling (local esbuild, no Docker)', () => {
  it('produces a minified ESM bundle with a source map and a working require, that runs', async () => {
    const app = testApp({ bundle: true });
    const stack = bareStack(app);
    const key = new DataKey(stack, 'DataKey');
    const bucket = new StateBucket(stack, 'StateBucket', { encryptionKey: key.key });
    const table = new StateTable(stack, 'StateTable', { keyDesign: FIXTURE_WIRING.keyDesign, timeToLiveAttribute: 'ttl' });
    new ApiFunctions(stack, 'Functions', {
      handlers: [{ name: 'Echo', entry: ECHO_HANDLER }],
      table: table.table,
      bucket: bucket.bucket,
      key: key.key,
      encryptionContextKeys: ['stackId'],
    });

    const template = Template.fromStack(stack);
    const assembly = app.synth();

    const fn = Object.values(template.findResources('AWS::Lambda::Function'))[0]!;
    expect(fn.Properties.Handler).toBe('index.handler');
    const assetHash = (fn.Properties.Code.S3Key as string).replace(/\.zip$/, '');
    const assetDir = join(assembly.directory, `asset.${assetHash}`);
    expect(readdirSync(assetDir).sort()).toEqual(['index.mjs', 'index.mjs.map']);
    const code = readFileSync(join(assetDir, 'index.mjs'), 'utf8');
    expect(code.startsWith('import { createRequire as __stackyardCreateRequire }')).toBe(true);
    expect(code).not.toContain('const digest =');
    expect(code).toContain('//# sourceMappingURL=index.mjs.map');
    const map = JSON.parse(readFileSync(join(assetDir, 'index.mjs.map'), 'utf8')) as { sources: string[]; sourcesContent?: unknown };
    expect(map.sources.some((s) => s.endsWith('echo-handler.ts'))).toBe(true);
    expect(map.sourcesContent).toBeUndefined();

    const bundled = (await import(pathToFileURL(join(assetDir, 'index.mjs')).href)) as {
      handler: (event: { rawPath: string }) => Promise<{ statusCode: number; body: string }>;
    };
    const response = await bundled.handler({ rawPath: '/api/user' });
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ path: '/api/user', name: 'echo' });
    expect(existsSync(join(assembly.directory, 'manifest.json'))).toBe(true);
  });
});

describe('the hook dispatcher bundle', () => {
  it('runs as Lambda runs it and delivers an outbox event to a Lambda destination', async () => {
    const app = testApp({ bundle: true });
    const stack = bareStack(app);
    const table = new StateTable(stack, 'StateTable', { ...storageWiring(), stream: StreamViewType.KEYS_ONLY });
    new HookDispatcher(stack, 'Hooks', {
      wiring: hookWiring(),
      table: table.table,
      partitionKey: 'pk',
      indexNames: ['gsi1'],
      hookFunctionArns: [],
      key: new DataKey(stack, 'DataKey').key,
    });
    const fn = Object.values(Template.fromStack(stack).findResources('AWS::Lambda::Function'))[0]!;
    const assetDir = join(app.synth().directory, `asset.${(fn.Properties.Code.S3Key as string).replace(/\.zip$/, '')}`);
    const arn = 'arn:aws:lambda:us-east-1:123456789012:function:ci-hook';
    const event = { id: '1767225600000-0123456789abcdef', kind: 'stack_created' as const, org: 'acme', stackId: 's1', occurredAt: 1, payload: { event: 'stack_created' } };
    const [standIns, lambda] = await Promise.all([startAwsStandIns(), startLambdaStandIn({ 'ci-hook': () => null })]);
    const workDir = mkdtempSync(join(tmpdir(), 'stackyard-dispatcher-'));
    const restoreEnv = applyEnv(standIns.env);
    const storage = createAwsStorage({ table: standIns.table, bucket: standIns.bucket, kmsKeyId: standIns.kmsKeyId });
    const documents = DynamoDBDocumentClient.from(new DynamoDBClient({}));
    try {
      await storage.hooks.create({
        org: 'acme',
        name: 'ci',
        events: [],
        destination: { kind: 'lambda', arn },
        active: true,
        gate: false,
        failOpen: false,
        createdBy: 'alice',
        createdAt: 0,
      });
      await documents.send(new TransactWriteCommand({ TransactItems: outboxPuts(standIns.table, [event]) as never }));
      const streamBatch = { Records: [{ eventName: 'INSERT', dynamodb: { Keys: { pk: { S: `OUTBOX#${event.id}` }, sk: { S: 'EVENT' } } } }] };
      writeFileSync(join(workDir, 'event.json'), JSON.stringify(streamBatch));

      await promisify(execFile)(process.execPath, [INVOKE_DISPATCHER, join(assetDir, 'index.mjs'), join(workDir, 'event.json'), join(workDir, 'result.json')], {
        env: { ...process.env, ...standIns.env, AWS_ENDPOINT_URL_LAMBDA: lambda.endpoint },
        timeout: 30_000,
      });

      expect(readdirSync(assetDir).sort()).toEqual(['index.mjs', 'index.mjs.map']);
      expect(JSON.parse(readFileSync(join(workDir, 'result.json'), 'utf8'))).toEqual({ events: 1, attempts: 1, succeeded: 1, deadLettered: 0 });
      expect(lambda.invocations.map((i) => [i.functionName, i.invocationType, i.payload])).toEqual([
        [arn, 'Event', { id: event.id, kind: 'stack', payload: { event: 'stack_created' } }],
      ]);
    } finally {
      documents.destroy();
      await storage.close();
      restoreEnv();
      rmSync(workDir, { recursive: true, force: true });
      await Promise.allSettled([standIns.stop(), lambda.stop()]);
    }
  });
});
