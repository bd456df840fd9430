import { ArnFormat, Duration, Names, Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { jobFunction } from './job-function.js';
import { grantDataKeysWithContext, type HandlerSpec } from './api-functions.js';

/** What the application code dictates about schedule triggers. */
export interface ScheduleFiringWiring {
  /** The fire function's Lambda entry (functions/handlers/schedule-fire.ts). */
  readonly fire: HandlerSpec;
  /** Variables the code reads: the schedule group, the fire function's ARN and the Scheduler's role ARN. */
  readonly groupVariable: string;
  readonly fireArnVariable: string;
  readonly roleArnVariable: string;
  /** The run queue's URL variable: the fire function queues the runs of the schedules it fires. */
  readonly runQueueVariable: string;
}

/** Props for {@link ScheduleFiring}. */
export interface ScheduleFiringProps {
  readonly wiring: ScheduleFiringWiring;
  readonly table: dynamodb.ITableV2;
  readonly indexNames: readonly string[];
  readonly key: kms.IKey;
  /** Encryption-context keys of stack data keys (a queued run's secret settings are sealed under them). */
  readonly encryptionContextKeys: readonly string[];
  readonly runQueue: sqs.IQueue;
  /** The state bucket's name: the storage variables name it, though firing a schedule reads no object. */
  readonly bucketName: string;
  readonly logRetention?: logs.RetentionDays;
}

/**
 * Stack schedules on AWS (docs/deployments.md, "Schedules on AWS"): one EventBridge Scheduler schedule group holding
 * a schedule per stack schedule (the API creates, replaces and deletes them), the fire function they invoke, and the
 * role the Scheduler invokes it with. The Scheduler bills per invocation (about $1 a million): an idle group costs
 * nothing, and each schedule costs its firings.
 */
export class ScheduleFiring extends Construct {
  readonly group: scheduler.CfnScheduleGroup;
  readonly groupName: string;
  /** The role EventBridge Scheduler assumes to invoke the fire function, and nothing else. */
  readonly schedulerRole: iam.Role;
  readonly fireRole: iam.Role;
  readonly fire: NodejsFunction;
  private readonly wiring: ScheduleFiringWiring;

  constructor(scope: Construct, id: string, props: ScheduleFiringProps) {
    super(scope, id);
    const { wiring, key, table } = props;
    const stack = Stack.of(this);
    this.wiring = wiring;

    this.groupName = Names.uniqueResourceName(this, { maxLength: 64, separator: '-' });
    this.group = new scheduler.CfnScheduleGroup(this, 'Group', { name: this.groupName });

    this.fireRole = new iam.Role(this, 'FireRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: 'Stackyard schedule fire function: fires due stack schedules and queues their runs',
    });
    this.fireRole.addToPolicy(
      new iam.PolicyStatement({
        sid: 'ScheduleItems',
        actions: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
        resources: [table.tableArn, ...props.indexNames.map((name) => `${table.tableArn}/index/${name}`)],
      }),
    );
    grantDataKeysWithContext(this.fireRole, key, props.encryptionContextKeys);
    props.runQueue.grantSendMessages(this.fireRole);
    // A trigger whose record is gone is removed by the fire function; it never creates or changes one.
    this.fireRole.addToPolicy(new iam.PolicyStatement({ sid: 'RemoveOrphanTrigger', actions: ['scheduler:DeleteSchedule'], resources: [this.scheduleArns()] }));
    this.schedulerRole = new iam.Role(this, 'SchedulerRole', {
      // Only schedules of this account may assume it (the confused-deputy guard EventBridge Scheduler documents).
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', { conditions: { StringEquals: { 'aws:SourceAccount': stack.account } } }),
      description: 'EventBridge Scheduler: invokes the Stackyard schedule fire function, and nothing else',
    });
    this.fire = jobFunction(this, 'Fire', {
      spec: wiring.fire,
      role: this.fireRole,
      description: 'Stackyard schedule fire function',
      defaultTimeout: Duration.seconds(30),
      logRetention: props.logRetention,
      // Its own ARN reaches it as the invocation's `invokedFunctionArn`: naming it here would be a cycle.
      environment: {
        STACKYARD_TABLE: table.tableName,
        STACKYARD_BUCKET: props.bucketName,
        STACKYARD_KMS_KEY_ID: key.keyArn,
        [wiring.runQueueVariable]: props.runQueue.queueUrl,
        [wiring.groupVariable]: this.groupName,
        [wiring.roleArnVariable]: this.schedulerRole.roleArn,
      },
    });
    this.schedulerRole.addToPolicy(new iam.PolicyStatement({ sid: 'InvokeFire', actions: ['lambda:InvokeFunction'], resources: [this.fire.functionArn] }));
    NagSuppressions.addResourceSuppressions(
      this.fireRole,
      [{ id: 'AwsSolutions-IAM5', reason: SCHEDULE_WILDCARD_REASON, appliesTo: [{ regex: SCHEDULE_WILDCARD }] }],
      true,
    );
  }

  /** The ARNs of every schedule in this group (and only this group). */
  scheduleArns(): string {
    return Stack.of(this).formatArn({ service: 'scheduler', resource: 'schedule', resourceName: `${this.groupName}/*`, arnFormat: ArnFormat.SLASH_RESOURCE_NAME });
  }

  /**
   * Lets `role` (the API functions') keep the triggers of stack schedules: create, replace and delete schedules of
   * this group alone, passing them the Scheduler's role alone, and tells `functions` where they point.
   */
  grantManage(role: iam.IRole, functions: Iterable<lambda.Function>): void {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'ScheduleTriggers',
        actions: ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule'],
        resources: [this.scheduleArns()],
      }),
    );
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'PassSchedulerRole',
        actions: ['iam:PassRole'],
        resources: [this.schedulerRole.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      }),
    );
    NagSuppressions.addResourceSuppressions(role, [{ id: 'AwsSolutions-IAM5', reason: SCHEDULE_WILDCARD_REASON, appliesTo: [{ regex: SCHEDULE_WILDCARD }] }], true);
    for (const fn of functions) {
      fn.addEnvironment(this.wiring.groupVariable, this.groupName);
      fn.addEnvironment(this.wiring.fireArnVariable, this.fire.functionArn);
      fn.addEnvironment(this.wiring.roleArnVariable, this.schedulerRole.roleArn);
    }
  }
}

/** cdk-nag's rendering of `scheduleArns()`: the group's schedules, one per stack schedule, named at run time. */
const SCHEDULE_WILDCARD = '/^Resource::arn:.+:scheduler:.+:schedule\\/[^/]+\\/\\*$/g';
const SCHEDULE_WILDCARD_REASON =
  'EventBridge Scheduler schedules are named by each stack schedule\'s id, made at run time: the grant covers the ' +
  'schedules of this deployment\'s schedule group only, no other group.';
