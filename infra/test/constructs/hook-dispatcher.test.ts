import type { CfnElement } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as sns from 'aws-cdk-lib/aws-sns';
import { describe, expect, it, vi } from 'vitest';
import { createDeadLetterMetrics, publishDeadLetters } from '../../../functions/hook-dispatcher.js';
import { KEY } from '../../../shared/adapters/aws/table.js';
import { outboxPuts } from '../../../shared/adapters/aws/dynamodb-hook-store.js';
import { StackyardStack } from '../../lib/stacks/stackyard-stack.js';
import type { StackyardWiring } from '../../lib/stacks/stackyard-stack.js';
import { storageWiring } from '../../lib/wiring.js';
import { FIXTURE_WIRING, TEST_ENV, nagReport, testApp } from '../support.js';

const wiring: StackyardWiring = { ...FIXTURE_WIRING, ...storageWiring() };
const CI_HOOK = 'arn:aws:lambda:eu-west-1:123456789012:function:ci-hook';
const GATE_ALIAS = 'arn:aws:lambda:eu-west-1:123456789012:function:change-window:live';

function synthesize(hookFunctionArns?: string[]) {
  const stack = new StackyardStack(testApp(), 'Stackyard', { env: TEST_ENV, wiring, hookFunctionArns });
  return { stack, template: Template.fromStack(stack) };
}

const logicalId = (stack: StackyardStack, element: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(element.node.defaultChild as CfnElement);

type Statement = { Sid?: string; Action: string | string[]; Resource: unknown };

/** Each IAM policy's statements, by the logical id of the role it is attached to. */
function statementsByRole(template: Template): Map<string, Statement[]> {
  const byRole = new Map<string, Statement[]>();
  for (const policy of Object.values(template.findResources('AWS::IAM::Policy'))) {
    for (const role of policy.Properties.Roles as Array<{ Ref: string }>) {
      byRole.set(role.Ref, [...(byRole.get(role.Ref) ?? []), ...(policy.Properties.PolicyDocument.Statement as Statement[])]);
    }
  }
  return byRole;
}

const actions = (statement: Statement) => [statement.Action].flat();

describe('hook dispatcher wiring', () => {
  it('streams the table keys-only and maps only outbox inserts to the dispatcher, failures to an SQS queue', () => {
    const { stack, template } = synthesize();
    const dispatcherId = logicalId(stack, stack.hookDispatcher.function);
    const queueId = logicalId(stack, stack.hookDispatcher.failedBatches);
    const tableId = logicalId(stack, stack.stateTable.table);

    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', { StreamSpecification: { StreamViewType: 'KEYS_ONLY' } });
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: dispatcherId },
      EventSourceArn: { 'Fn::GetAtt': [tableId, 'StreamArn'] },
      StartingPosition: 'LATEST',
      BatchSize: 100,
      MaximumBatchingWindowInSeconds: 1,
      MaximumRetryAttempts: 3,
      BisectBatchOnFunctionError: false,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } } },
    });
    const mapping = Object.values(template.findResources('AWS::Lambda::EventSourceMapping'))[0]!;
    const patterns = (mapping.Properties.FilterCriteria.Filters as Array<{ Pattern: string }>).map((f) => JSON.parse(f.Pattern));
    expect(patterns).toEqual([{ eventName: ['INSERT'], dynamodb: { Keys: { pk: { S: [{ prefix: 'OUTBOX#' }] } } } }]);
    template.hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('filters on exactly the partition key and prefix of the outbox items the AWS adapter writes', () => {
    const event = { id: '1767225600000-0123456789abcdef', kind: 'stack_created' as const, org: 'acme', stackId: 's1', occurredAt: 0, payload: {} };

    const [put] = outboxPuts('table', [event]) as Array<{ Put: { Item: Record<string, string> } }>;

    expect(KEY.partition).toBe('pk');
    expect(put!.Put.Item[KEY.partition]!.startsWith(wiring.hooks.outboxKeyPrefix)).toBe(true);
    expect(wiring.hooks.outboxKeyPrefix).toBe('OUTBOX#');
  });

  it('runs the dispatcher every minute too, without async retries, on the table and the hook secrets alone', () => {
    const { stack, template } = synthesize();
    const dispatcherId = logicalId(stack, stack.hookDispatcher.function);

    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [dispatcherId, 'Arn'] } })],
    });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      FunctionName: { 'Fn::GetAtt': [dispatcherId, 'Arn'] },
      Principal: 'events.amazonaws.com',
    });
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: dispatcherId },
      MaximumRetryAttempts: 0,
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'Stackyard hook dispatcher',
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      MemorySize: 512,
      Timeout: 60,
      Environment: {
        Variables: {
          STACKYARD_TABLE: { Ref: Match.stringLikeRegexp('^StateTable') },
          STACKYARD_KMS_KEY_ID: { 'Fn::GetAtt': [Match.stringLikeRegexp('^DataKey'), 'Arn'] },
          STACKYARD_HOOK_FUNCTION_ARNS: '',
          STACKYARD_DEPLOYMENT: 'Stackyard',
          POWERTOOLS_SERVICE_NAME: 'stackyard',
        },
      },
    });
    const dispatcherStatements = statementsByRole(template).get(logicalId(stack, stack.hookDispatcher.role))!;
    const granted = new Set(dispatcherStatements.flatMap(actions));
    expect([...granted].filter((a) => /^s3:/.test(a))).toEqual([]);
    // KMS only to open hook secrets: decrypt, with the hook-secret context, never a stack's data key.
    expect(dispatcherStatements.filter((st) => actions(st).some((a) => a.startsWith('kms:')))).toEqual([
      expect.objectContaining({
        Sid: 'HookSecretsOpen',
        Action: 'kms:Decrypt',
        Condition: {
          StringEquals: { 'kms:EncryptionContext:purpose': 'stackyard-hook-secret' },
          'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['purpose', 'org', 'scope', 'hook'] },
        },
      }),
    ]);
    const apiStatements = statementsByRole(template).get(logicalId(stack, stack.apiFunctions.role))!;
    expect(apiStatements.find((st) => st.Sid === 'HookSecretsSealAndOpen')).toMatchObject({
      Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
      Condition: { StringEquals: { 'kms:EncryptionContext:purpose': 'stackyard-hook-secret' } },
    });
    expect(granted).toEqual(
      new Set([
        'dynamodb:GetItem',
        'dynamodb:Query',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:DeleteItem',
        'dynamodb:DescribeStream',
        'dynamodb:GetRecords',
        'dynamodb:GetShardIterator',
        'dynamodb:ListStreams',
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
        'sqs:SendMessage',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        // X-Ray traces (Tracing.ACTIVE).
        'xray:PutTraceSegments',
        'xray:PutTelemetryRecords',
        'kms:Decrypt',
      ]),
    );
  });

  it('lets the dispatcher and the API functions invoke only the listed functions, and tells them the list', () => {
    const { stack, template } = synthesize([CI_HOOK, GATE_ALIAS]);
    const byRole = statementsByRole(template);

    const invoke = [...byRole].flatMap(([role, statements]) =>
      statements
        .filter((s) => actions(s).some((a) => a.startsWith('lambda:')))
        .map((s) => [role, s.Action, [s.Resource].flat().sort()]),
    );

    const resources = [CI_HOOK, `${CI_HOOK}:*`, GATE_ALIAS].sort();
    expect(invoke.sort()).toEqual(
      [
        [logicalId(stack, stack.apiFunctions.role), 'lambda:InvokeFunction', resources],
        [logicalId(stack, stack.hookDispatcher.role), 'lambda:InvokeFunction', resources],
      ].sort(),
    );
    template.allResourcesProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ STACKYARD_HOOK_FUNCTION_ARNS: `${CI_HOOK},${GATE_ALIAS}` }) },
    });
    template.resourceCountIs('AWS::Lambda::Function', FIXTURE_WIRING.handlers.length + 1);
  });

  it('grants no lambda:InvokeFunction at all, and lists no function, when none are listed', () => {
    const { template } = synthesize([]);

    const lambdaActions = [...statementsByRole(template).values()].flat().flatMap(actions).filter((a) => a.startsWith('lambda:'));

    expect(lambdaActions).toEqual([]);
    template.allResourcesProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ STACKYARD_HOOK_FUNCTION_ARNS: '' }) },
    });
  });

  it('alarms on the DeadLetters metric the dispatcher writes, on failed stream batches and on dispatcher errors', () => {
    const { stack, template } = synthesize();
    const written = JSON.parse(publishedLine(() => publishDeadLetters(createDeadLetterMetrics(), 'Stackyard', 2))) as {
      _aws: { CloudWatchMetrics: Array<{ Namespace: string; Dimensions: string[][]; Metrics: Array<{ Name: string }> }> };
    } & Record<string, unknown>;
    const [directive] = written._aws.CloudWatchMetrics;
    const dimension = directive!.Dimensions[0]![0]!;

    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: directive!.Namespace,
      MetricName: directive!.Metrics[0]!.Name,
      Dimensions: [{ Name: dimension, Value: written[dimension] }],
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    expect(written[dimension]).toBe(stack.stackName);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(stack, stack.hookDispatcher.failedBatches), 'QueueName'] } }],
      Statistic: 'Maximum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: logicalId(stack, stack.hookDispatcher.function) } }],
      Threshold: 5,
    });
  });

  it('sends every alarm of the deployment, hooks included, to the actions given', () => {
    const stack = new StackyardStack(testApp(), 'Stackyard', { env: TEST_ENV, wiring });
    const topic = new sns.Topic(stack, 'Ops');

    stack.addAlarmActions(new cloudwatchActions.SnsAction(topic));

    const alarms = Object.values(Template.fromStack(stack).findResources('AWS::CloudWatch::Alarm'));
    expect(alarms).toHaveLength(6);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual([{ Ref: logicalId(stack, topic) }]);
      expect(alarm.Properties.OKActions).toEqual([{ Ref: logicalId(stack, topic) }]);
    }
  });

  it('passes cdk-nag with written reasons for the invoke qualifiers and the failure queue', () => {
    const stack = new StackyardStack(testApp(), 'Stackyard', { env: TEST_ENV, wiring, hookFunctionArns: [CI_HOOK] });

    const report = nagReport(stack);

    expect(report.findings).toEqual([]);
    const hooks = report.suppressed.filter((s) => s.path.startsWith('Stackyard/Hooks/'));
    expect(new Set(hooks.map((s) => s.ruleId))).toEqual(
      new Set(['AwsSolutions-L1', 'AwsSolutions-SQS3', `AwsSolutions-IAM5[Resource::${CI_HOOK}:*]`, 'AwsSolutions-IAM5[Resource::*]']),
    );
    const invokeWildcards = report.suppressed.filter((s) => s.ruleId.startsWith('AwsSolutions-IAM5[Resource::arn:aws:lambda'));
    expect(invokeWildcards.map((s) => s.path.split('/')[1]).sort()).toEqual(['Functions', 'Hooks']);
    for (const s of report.suppressed) expect(s.reason.length).toBeGreaterThan(40);
  });
});

/** The one line `publish` writes to stdout (where Lambda's EMF lines go). */
function publishedLine(publish: () => void): string {
  const written: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true));
  try {
    publish();
  } finally {
    spy.mockRestore();
  }
  expect(written).toHaveLength(1);
  return written[0]!;
}
