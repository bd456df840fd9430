import { Duration } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { CodeBuildRunner } from '../../lib/constructs/codebuild-runner.js';
import { runnerWiring } from '../../lib/wiring.js';
import { ECHO_HANDLER, bareStack, nagReport } from '../support.js';

const wiring = { ...runnerWiring(), launcher: { name: 'RunLauncher', entry: ECHO_HANDLER } };

function synth(network?: { vpcId: string; subnetIds: string[] }) {
  const stack = bareStack();
  const runner = new CodeBuildRunner(stack, 'Runner', {
    wiring,
    queue: new sqs.Queue(stack, 'Queue', { visibilityTimeout: Duration.minutes(6) }),
    table: new dynamodb.TableV2(stack, 'Table', { partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING } }),
    indexNames: ['gsi1'],
    key: new kms.Key(stack, 'Key'),
    bucketName: 'state-bucket',
    encryptionContextKeys: ['stackyard:stack'],
    serviceUrl: 'https://api.example.com',
    ...(network ? { vpc: ec2.Vpc.fromVpcAttributes(stack, 'Vpc', { vpcId: network.vpcId, availabilityZones: ['eu-west-1a'] }), subnetIds: network.subnetIds } : {}),
  });
  return { stack, runner, template: Template.fromStack(stack) };
}

type Statement = { Sid?: string; Action: string | string[]; Resource: unknown; Condition?: unknown };

function statementsOf(template: Template, rolePrefix: string): Statement[] {
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((p) => JSON.stringify(p.Properties.Roles).includes(rolePrefix))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
}

describe('CodeBuildRunner', () => {
  it('runs builds on the Linux standard image with the API URL, the synthesized buildspec and a log group of their own', () => {
    const { template } = synth();

    template.hasResourceProperties('AWS::CodeBuild::Project', {
      Environment: Match.objectLike({
        Image: 'aws/codebuild/standard:7.0',
        Type: 'LINUX_CONTAINER',
        PrivilegedMode: false,
        EnvironmentVariables: [{ Name: 'STACKYARD_RUNNER_SERVICE_URL', Type: 'PLAINTEXT', Value: 'https://api.example.com' }],
      }),
      LogsConfig: { CloudWatchLogs: { Status: 'ENABLED', GroupName: { Ref: Match.stringLikeRegexp('^RunnerBuildLogs') } } },
      Source: Match.objectLike({ Type: 'S3', BuildSpec: Match.stringLikeRegexp('runner --run \\\\"\\$STACKYARD_RUN_ID\\\\"') }),
      TimeoutInMinutes: 300,
    });
    template.hasResourceProperties('AWS::Logs::LogGroup', { LogGroupName: '/stackyard/Bare/runner', RetentionInDays: 30 });
  });

  it('gives the build role only its run token\'s KMS purpose, its logs and its source: no table, no stack data keys', () => {
    const { template } = synth();

    const statements = statementsOf(template, 'RunnerBuildRole');
    const actions = new Set(statements.flatMap((s) => [s.Action].flat()));

    expect([...actions].filter((a) => /^(dynamodb|sqs|codebuild:StartBuild|kms:(Encrypt|GenerateDataKey))/.test(a))).toEqual([]);
    const kmsStatements = statements.filter((s) => [s.Action].flat().some((a) => a.startsWith('kms:')));
    expect(kmsStatements).toEqual([
      {
        Sid: 'OpenRunToken',
        Effect: 'Allow',
        Action: 'kms:Decrypt',
        Resource: { 'Fn::GetAtt': [expect.stringMatching(/^Key/), 'Arn'] },
        Condition: {
          StringEquals: { 'kms:EncryptionContext:purpose': 'stackyard-run-token' },
          'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['purpose', 'stackyard:run'] },
        },
      },
    ]);
    expect(actions.has('logs:PutLogEvents')).toBe(true);
  });

  it('lets the launcher consume the queue, seal run tokens and start builds of this project alone', () => {
    const { template } = synth();

    const statements = statementsOf(template, 'RunnerLauncherRole');

    expect(statements.find((s) => s.Sid === 'StartRunnerBuild')).toMatchObject({
      Action: 'codebuild:StartBuild',
      Resource: { 'Fn::GetAtt': [expect.stringMatching(/^RunnerProject/), 'Arn'] },
    });
    expect(statements.find((s) => s.Sid === 'SealRunToken')).toMatchObject({
      Action: 'kms:Encrypt',
      Condition: { StringEquals: { 'kms:EncryptionContext:purpose': 'stackyard-run-token' } },
    });
    expect(statements.some((s) => [s.Action].flat().includes('sqs:ReceiveMessage'))).toBe(true);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { BatchSize: 1, FunctionResponseTypes: ['ReportBatchItemFailures'] });
  });

  it('runs builds in the team\'s VPC subnets when one is configured', () => {
    const { template } = synth({ vpcId: 'vpc-0123456789abcdef0', subnetIds: ['subnet-0123456789abcdef0'] });

    template.hasResourceProperties('AWS::CodeBuild::Project', {
      VpcConfig: Match.objectLike({ VpcId: 'vpc-0123456789abcdef0', Subnets: ['subnet-0123456789abcdef0'] }),
    });
  });

  it('passes the cdk-nag AwsSolutions pack with a written reason for every suppression', () => {
    const { stack } = synth();

    const report = nagReport(stack);

    const own = report.findings.filter((f) => f.includes('/Runner/'));
    expect(own).toEqual([]);
    for (const s of report.suppressed) expect(s.reason.length).toBeGreaterThan(40);
  });
});
