import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { STACKS_BY_NAME_INDEX, TTL_ATTRIBUTE, stackyardTableDefinition } from '../../shared/adapters/aws/index.js';
import { StackyardStack } from '../lib/stacks/stackyard-stack.js';
import type { StackyardWiring } from '../lib/stacks/stackyard-stack.js';
import { storageWiring } from '../lib/wiring.js';
import { DEPLOYMENT_RESOURCE_TYPES, FIXTURE_WIRING, TEST_ENV, nagReport, testApp } from './support.js';

const wiring: StackyardWiring = { ...FIXTURE_WIRING, ...storageWiring() };

function synthStack(env: { account?: string; region?: string } | undefined = TEST_ENV) {
  const stack = new StackyardStack(testApp(), 'Stackyard', { env, wiring });
  return { stack, template: Template.fromStack(stack) };
}

function policyActions(template: Template): Set<string> {
  const statements = Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
    (p) => p.Properties.PolicyDocument.Statement as Array<{ Action: string | string[] }>,
  );
  return new Set(statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action])));
}

describe('StackyardStack', () => {
  it('outputs the login URL, table, bucket and key', () => {
    const { stack, template } = synthStack();

    template.hasOutput('LoginUrl', { Value: stack.resolve(stack.httpApi.api.apiEndpoint) });
    template.hasOutput('TableName', { Value: { Ref: Match.stringLikeRegexp('^StateTable') } });
    template.hasOutput('BucketName', { Value: { Ref: Match.stringLikeRegexp('^StateBucket') } });
    template.hasOutput('KeyArn', { Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^DataKey'), 'Arn'] } });
    template.hasOutput('KeyAlias', { Value: { Ref: Match.stringLikeRegexp('^DataKeyAlias') } });
    template.hasResourceProperties('AWS::KMS::Alias', { AliasName: 'alias/stackyard' });
  });

  it('with a custom domain, logs in through it and outputs the DNS target', () => {
    const certificateArn = 'arn:aws:acm:eu-west-1:123456789012:certificate/0f0f0f0f-1111-2222-3333-444444444444';
    const stack = new StackyardStack(testApp(), 'Stackyard', {
      env: TEST_ENV,
      wiring,
      customDomain: { domainName: 'pulumi.example.com', certificateArn },
    });

    const template = Template.fromStack(stack);

    template.hasOutput('LoginUrl', { Value: 'https://pulumi.example.com' });
    template.hasOutput('DomainTarget', {
      Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^ApiDomainName'), 'RegionalDomainName'] },
    });
  });

  it('creates exactly the table the AWS adapter defines, with its TTL attribute', () => {
    const { template } = synthStack();
    const definition = stackyardTableDefinition('unused');

    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      KeySchema: definition.KeySchema,
      AttributeDefinitions: Match.arrayEquals(definition.AttributeDefinitions!),
      GlobalSecondaryIndexes: definition.GlobalSecondaryIndexes,
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
      BillingMode: 'PAY_PER_REQUEST',
    });
    expect(wiring.keyDesign.GlobalSecondaryIndexes?.map((i) => i.IndexName)).toEqual([STACKS_BY_NAME_INDEX]);
  });

  it('grants every DynamoDB, S3 and KMS call the AWS adapters make, and nothing they never make', () => {
    const { template } = synthStack();
    const adapterDir = fileURLToPath(new URL('../../shared/adapters/aws/', import.meta.url));
    // `stackyard admin upgrade` runs these with the operator's own credentials; no function reaches them (asserted
    // below), so their Scans need no grant.
    const operatorOnly = ['member-mirrors.ts', 'token-ttl-backfill.ts', 'table-scan.ts'];
    const source = readdirSync(adapterDir)
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !operatorOnly.includes(f))
      .map((f) => readFileSync(adapterDir + f, 'utf8'))
      .join('\n');
    // TransactWriteItems is authorized per item (Put/Update/Delete/ConditionCheck), so it maps to nothing itself.
    const iamActionOf: Record<string, string | undefined> = {
      GetCommand: 'dynamodb:GetItem',
      PutCommand: 'dynamodb:PutItem',
      UpdateCommand: 'dynamodb:UpdateItem',
      DeleteCommand: 'dynamodb:DeleteItem',
      QueryCommand: 'dynamodb:Query',
      ScanCommand: 'dynamodb:Scan',
      BatchGetCommand: 'dynamodb:BatchGetItem',
      BatchWriteCommand: 'dynamodb:BatchWriteItem',
      TransactWriteCommand: undefined,
      // createStackyardTable: table set-up for tests and a local `serve`; deployed functions never create tables.
      CreateTableCommand: undefined,
      DescribeTableCommand: undefined,
      UpdateTimeToLiveCommand: undefined,
      GetObjectCommand: 's3:GetObject',
      PutObjectCommand: 's3:PutObject',
      ListObjectsV2Command: 's3:ListBucket',
      DeleteObjectCommand: 's3:DeleteObject',
      // a multi-object delete is authorized as s3:DeleteObject of each key (program archives of a removed stack)
      DeleteObjectsCommand: 's3:DeleteObject',
      GenerateDataKeyCommand: 'kms:GenerateDataKey',
      DecryptCommand: 'kms:Decrypt',
      SendMessageCommand: 'sqs:SendMessage',
      // The run launcher's alone (sealing run tokens, starting builds): its role is asserted in
      // constructs/codebuild-runner.test.ts, and this fixture wiring has no runner.
      EncryptCommand: undefined,
      StartBuildCommand: undefined,
      // Schedule triggers: the API role's and the fire function's grants are asserted in
      // constructs/schedule-firing.test.ts, and this fixture wiring has no schedules.
      CreateScheduleCommand: undefined,
      UpdateScheduleCommand: undefined,
      DeleteScheduleCommand: undefined,
      // The environment providers' (aws-provider-sdk.ts): the web identity token is AssumeRoleWithWebIdentity's
      // credential, and the other two sign with the credentials it returned, never with the function's role.
      AssumeRoleWithWebIdentityCommand: undefined,
      GetSecretValueCommand: undefined,
      GetParameterCommand: undefined,
    };
    const used = new Set([...source.matchAll(/\bnew (\w+Command)\(/g)].map((m) => m[1]!));
    const unknown = [...used].filter((command) => !(command in iamActionOf));
    const needed = [...used].map((command) => iamActionOf[command]).filter((a): a is string => Boolean(a));

    const granted = policyActions(template);

    expect(unknown).toEqual([]);
    // the operator-only scan helper stays out of every adapter a function builds
    expect(source).not.toMatch(/table-scan/);
    expect(needed.filter((action) => !granted.has(action))).toEqual([]);
    // Lambda's poller reads the table's stream with the dispatcher's role; no adapter calls these.
    const streamPolling = ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'];
    const storageActions = [...granted].filter((a) => /^(dynamodb|s3|kms):/.test(a) && !streamPolling.includes(a));
    expect(storageActions.filter((a) => !needed.includes(a))).toEqual([]);
    const functionsDir = fileURLToPath(new URL('../../functions/', import.meta.url));
    const functionSources = readdirSync(functionsDir, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .map((f) => readFileSync(functionsDir + f, 'utf8'));
    expect(functionSources.filter((text) => /member-mirrors|backfillMemberMirrors|token-ttl-backfill|backfillTokenTtl|table-scan|scanItems/.test(text))).toEqual([]);
  });

  it('queues deployment runs on an encrypted, TLS-only SQS queue with a dead-letter queue, which only the API may send to', () => {
    const { template } = synthStack();

    const queues = template.findResources('AWS::SQS::Queue', { Properties: { RedrivePolicy: Match.anyValue() } });
    expect(Object.keys(queues)).toEqual([expect.stringMatching(/^RunsQueue/)]);
    const runQueue = Object.values(queues)[0]!.Properties;
    expect(runQueue.SqsManagedSseEnabled).toBe(true);
    expect(runQueue.RedrivePolicy).toEqual({ deadLetterTargetArn: { 'Fn::GetAtt': [expect.stringMatching(/^RunsDeadLetters/), 'Arn'] }, maxReceiveCount: 5 });
    template.hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 86_400 });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: Match.stringLikeRegexp('^RunsQueue') }],
      PolicyDocument: { Statement: [Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })] },
    });
    const sends = Object.values(template.findResources('AWS::IAM::Policy')).flatMap((p) =>
      (p.Properties.PolicyDocument.Statement as Array<{ Action: string | string[]; Resource: unknown }>)
        .filter((statement) => JSON.stringify(statement.Resource).includes('RunsQueue'))
        .map((statement) => ({ roles: p.Properties.Roles, actions: [statement.Action].flat() })),
    );
    expect(sends).toEqual([
      { roles: [{ Ref: expect.stringMatching(/^FunctionsRole/) }], actions: ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'] },
    ]);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ STACKYARD_RUN_QUEUE_URL: { Ref: Match.stringLikeRegexp('^RunsQueue') } }) },
    });
  });

  it('holds nothing that bills by the hour', () => {
    const { template } = synthStack();

    const types = new Set(Object.values(template.toJSON().Resources as Record<string, { Type: string }>).map((r) => r.Type));

    expect([...types].sort()).toEqual([...DEPLOYMENT_RESOURCE_TYPES].sort());
    template.resourceCountIs('AWS::KMS::Key', 1);
    template.resourceCountIs('AWS::CloudWatch::Alarm', 6);
  });

  it('synthesizes without an account or region, as `cdk synth` does offline without credentials', () => {
    const { template } = synthStack({});

    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Sid: 'BucketEncryptionViaS3',
            Condition: Match.objectLike({
              StringEquals: { 'kms:ViaService': { 'Fn::Join': ['', ['s3.', { Ref: 'AWS::Region' }, '.amazonaws.com']] } },
            }),
          }),
        ]),
      },
    });
  });

  it('passes the cdk-nag AwsSolutions pack with a written reason for every suppression', () => {
    const stack = new StackyardStack(testApp(), 'Stackyard', { env: TEST_ENV, wiring });

    const report = nagReport(stack);

    expect(report.findings).toEqual([]);
    expect(new Set(report.suppressed.map((s) => s.ruleId.replace(/\[.*$/, '')))).toEqual(
      new Set(['AwsSolutions-S1', 'AwsSolutions-IAM5', 'AwsSolutions-L1', 'AwsSolutions-APIG4', 'AwsSolutions-SQS3']),
    );
    for (const s of report.suppressed) expect(s.reason.length).toBeGreaterThan(40);
  });
});
