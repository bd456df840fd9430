import { Duration } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { ScheduleFiring } from '../../lib/constructs/schedule-firing.js';
import { scheduleWiring } from '../../lib/wiring.js';
import { ECHO_HANDLER, bareStack, nagReport } from '../support.js';

const wiring = { ...scheduleWiring(), fire: { name: 'ScheduleFire', entry: ECHO_HANDLER } };

/** The construct, and an API function with a role of its own that is granted the triggers. */
function synth() {
  const stack = bareStack();
  const firing = new ScheduleFiring(stack, 'Schedules', {
    wiring,
    table: new dynamodb.TableV2(stack, 'Table', { partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING } }),
    indexNames: ['gsi1'],
    key: new kms.Key(stack, 'Key', { enableKeyRotation: true }),
    encryptionContextKeys: ['stackyard:stack'],
    runQueue: new sqs.Queue(stack, 'Queue', { visibilityTimeout: Duration.minutes(6), enforceSSL: true }),
    bucketName: 'state-bucket',
  });
  const apiRole = new iam.Role(stack, 'ApiRole', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
  const api = new lambda.Function(stack, 'Api', { runtime: lambda.Runtime.NODEJS_22_X, handler: 'index.handler', code: lambda.Code.fromInline('0'), role: apiRole });
  firing.grantManage(apiRole, [api]);
  return { stack, firing, template: Template.fromStack(stack) };
}

/** One synthesis for the tests that only read the template (cdk-nag's adds aspects, so it synthesizes its own). */
let shared: ReturnType<typeof synth> | undefined;
const synthOnce = () => (shared ??= synth());

type Statement = { Sid?: string; Action: string | string[]; Resource: unknown; Condition?: unknown };

function statementsOf(template: Template, rolePrefix: string): Statement[] {
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((p) => JSON.stringify(p.Properties.Roles).includes(rolePrefix))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
}

const actionsOf = (statements: Statement[]) => statements.flatMap((s) => [s.Action].flat());
const GROUP_SCHEDULES = expect.stringMatching(/^arn:aws:scheduler:eu-west-1:123456789012:schedule\/Bare-Schedules-[0-9A-F]{8}\/\*$/);

describe('ScheduleFiring', () => {
  it('holds one schedule group and a fire function with the table, key, run queue, group and Scheduler role it needs', () => {
    const { template, stack, firing } = synthOnce();

    template.resourceCountIs('AWS::Scheduler::ScheduleGroup', 1);
    template.hasResourceProperties('AWS::Scheduler::ScheduleGroup', { Name: firing.groupName });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'Stackyard schedule fire function',
      Environment: {
        Variables: Match.objectLike({
          STACKYARD_TABLE: { Ref: Match.stringLikeRegexp('^Table') },
          STACKYARD_RUN_QUEUE_URL: { Ref: Match.stringLikeRegexp('^Queue') },
          STACKYARD_SCHEDULE_GROUP: firing.groupName,
          STACKYARD_SCHEDULER_ROLE_ARN: stack.resolve(firing.schedulerRole.roleArn),
        }),
      },
    });
  });

  it('lets EventBridge Scheduler, for this account only, invoke the fire function and nothing else', () => {
    const { template, stack, firing } = synthOnce();

    template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [{ Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'scheduler.amazonaws.com' }, Condition: { StringEquals: { 'aws:SourceAccount': '123456789012' } } }],
      },
    });
    expect(statementsOf(template, 'SchedulesSchedulerRole')).toEqual([
      { Sid: 'InvokeFire', Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: stack.resolve(firing.fire.functionArn) },
    ]);
  });

  it("lets the API's role create, replace and delete this group's schedules and pass them the Scheduler role alone", () => {
    const { template, stack, firing } = synthOnce();

    const statements = statementsOf(template, 'ApiRole');

    expect(statements).toEqual([
      { Sid: 'ScheduleTriggers', Effect: 'Allow', Action: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule', 'scheduler:UpdateSchedule'], Resource: GROUP_SCHEDULES },
      {
        Sid: 'PassSchedulerRole',
        Effect: 'Allow',
        Action: 'iam:PassRole',
        Resource: stack.resolve(firing.schedulerRole.roleArn),
        Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      },
    ]);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Role: { 'Fn::GetAtt': [Match.stringLikeRegexp('^ApiRole'), 'Arn'] },
      Environment: {
        Variables: {
          STACKYARD_SCHEDULE_GROUP: firing.groupName,
          STACKYARD_SCHEDULE_FIRE_ARN: stack.resolve(firing.fire.functionArn),
          STACKYARD_SCHEDULER_ROLE_ARN: stack.resolve(firing.schedulerRole.roleArn),
        },
      },
    });
  });

  it('lets the fire function only delete triggers (never create one or pass a role), and send to the run queue', () => {
    const { template } = synthOnce();

    const statements = statementsOf(template, 'SchedulesFireRole');
    const actions = actionsOf(statements);

    expect(actions.filter((a) => a.startsWith('scheduler:') || a.startsWith('iam:'))).toEqual(['scheduler:DeleteSchedule']);
    expect(statements.find((s) => s.Sid === 'RemoveOrphanTrigger')?.Resource).toEqual(GROUP_SCHEDULES);
    expect(actions).toContain('sqs:SendMessage');
    expect(actions.filter((a) => a.startsWith('lambda:') || a.startsWith('codebuild:'))).toEqual([]);
  });

  it('passes the cdk-nag AwsSolutions pack with a written reason for every suppression', () => {
    const { stack } = synth();

    const report = nagReport(stack);

    expect(report.findings.filter((f) => f.includes('/Schedules/') || f.includes('/ApiRole/'))).toEqual([]);
    for (const s of report.suppressed) expect(s.reason.length).toBeGreaterThan(40);
  });
});
