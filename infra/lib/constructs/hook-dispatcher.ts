import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { FUNCTION_TRACING, suppressTracingWildcard } from './tracing.js';
import { BUNDLING, type HandlerSpec } from './api-functions.js';

/** What the application code dictates about hooks: the dispatcher, the outbox keys, the variables, the metric. */
export interface HookWiring {
  readonly dispatcher: HandlerSpec;
  /** Partition-key prefix of outbox items; the stream mapping passes only inserts of these. */
  readonly outboxKeyPrefix: string;
  /** Variable the functions read the hook functions they may invoke from (comma-separated ARNs). */
  readonly functionArnsVariable: string;
  /** Variable the dispatcher reads its deployment name (the metric dimension) from. */
  readonly deploymentVariable: string;
  readonly deadLetterMetric: { readonly namespace: string; readonly name: string; readonly dimension: string };
  /** The encryption context of hook signing secrets' data keys: its `purpose` value and all of its keys. */
  readonly secretContext: { readonly purpose: string; readonly keys: readonly string[] };
  /** Variable the functions read the KMS key id from. */
  readonly keyIdVariable: string;
}

/** Props for {@link HookDispatcher}. */
export interface HookDispatcherProps {
  readonly wiring: HookWiring;
  /** The state table, with a stream (any view type: the dispatcher reads only the keys, and re-reads the table). */
  readonly table: dynamodb.ITableV2;
  /** Name of the table's partition key, which the stream filter matches on. */
  readonly partitionKey: string;
  /** Global secondary indexes the hook store queries (outbox, due deliveries, dead letters). */
  readonly indexNames: readonly string[];
  /** The Lambda functions hooks may invoke (context value `hookFunctionArns`). */
  readonly hookFunctionArns: readonly string[];
  /** The deployment's KMS key, which seals the hooks' signing secrets; the dispatcher only decrypts them. */
  readonly key: kms.IKey;
  readonly logRetention?: logs.RetentionDays;
  readonly actions?: readonly cloudwatch.IAlarmAction[];
}

const PERIOD = Duration.minutes(5);

/**
 * Lets `role` use the KMS key for hook signing secrets only: data keys whose encryption context is a hook secret's
 * (`purpose` fixed, no other keys than the core's), so this grant opens no stack's secrets.
 */
export function grantHookSecrets(role: iam.IRole, key: kms.IKey, wiring: HookWiring, actions: readonly ('kms:GenerateDataKey' | 'kms:Decrypt')[]): void {
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: actions.includes('kms:GenerateDataKey') ? 'HookSecretsSealAndOpen' : 'HookSecretsOpen',
      actions: [...actions],
      resources: [key.keyArn],
      conditions: {
        StringEquals: { 'kms:EncryptionContext:purpose': wiring.secretContext.purpose },
        'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': [...wiring.secretContext.keys] },
      },
    }),
  );
}

/**
 * Lets `role` invoke exactly the listed functions (and their versions and aliases, which hooks may name as
 * `<arn>:<qualifier>`). No statement at all when none are listed.
 */
export function grantHookFunctionInvoke(role: iam.IRole, hookFunctionArns: readonly string[]): void {
  if (hookFunctionArns.length === 0) return;
  const unqualified = (arn: string) => arn.split(':').length === 7;
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'InvokeHookFunctions',
      actions: ['lambda:InvokeFunction'],
      resources: hookFunctionArns.flatMap((arn) => (unqualified(arn) ? [arn, `${arn}:*`] : [arn])),
    }),
  );
  NagSuppressions.addResourceSuppressions(
    role,
    [
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'Hooks may name a version or alias of a function the operator listed in hookFunctionArns, so each listed ' +
          'function is granted with its qualifiers (<function ARN>:*), and nothing else.',
        appliesTo: [{ regex: '/^Resource::arn:aws[a-z-]*:lambda:[^:]+:\\d{12}:function:[^:*]+:\\*$/' }],
      },
    ],
    true,
  );
}

/**
 * The hook dispatcher (docs/hooks.md, "AWS wiring"): a function that runs one dispatch per invocation, woken by the
 * table's stream for every outbox insert and by a one-minute schedule for retries coming due. Stream batches it
 * could not process go to an SQS queue; alarms watch that queue, the dead-lettered deliveries the function reports,
 * and the function's own errors.
 */
export class HookDispatcher extends Construct {
  readonly role: iam.Role;
  readonly function: NodejsFunction;
  /** Where the stream mapping sends batches that still failed after its retries (metadata only, no records). */
  readonly failedBatches: sqs.Queue;
  readonly schedule: events.Rule;
  /** Deliveries turned dead letters (the dispatcher's `DeadLetters` metric). */
  readonly deadLetters: cloudwatch.Alarm;
  /** Stream batches in the failure queue. */
  readonly failedBatchesVisible: cloudwatch.Alarm;
  /** The dispatcher keeps failing (stream or schedule). */
  readonly errors: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: HookDispatcherProps) {
    super(scope, id);
    const { wiring, table } = props;
    const spec = wiring.dispatcher;
    const stackName = Stack.of(this).stackName;

    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: 'Stackyard hook dispatcher',
    });
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'HookItems',
        actions: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
        resources: [table.tableArn, ...props.indexNames.map((name) => `${table.tableArn}/index/${name}`)],
      }),
    );
    grantHookFunctionInvoke(this.role, props.hookFunctionArns);
    grantHookSecrets(this.role, props.key, wiring, ['kms:Decrypt']);

    const logGroup = new logs.LogGroup(this, 'Logs', {
      logGroupName: `/stackyard/${stackName}/functions/${spec.name}`,
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    logGroup.grantWrite(this.role);

    this.function = new NodejsFunction(this, 'Function', {
      entry: spec.entry,
      handler: spec.handler ?? 'handler',
      description: 'Stackyard hook dispatcher',
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      // Mostly waiting on receivers; 512 MB keeps the cold start of the SDK-sized bundle short.
      memorySize: spec.memorySize ?? 512,
      // A run stops taking work one delivery timeout (10 s) plus 5 s before this, so its last attempt is recorded.
      timeout: spec.timeout ?? Duration.seconds(60),
      // A failed scheduled run is not retried: the next one starts within a minute and does the same work.
      retryAttempts: 0,
      role: this.role,
      logGroup,
      tracing: FUNCTION_TRACING,
      environment: {
        STACKYARD_TABLE: table.tableName,
        [wiring.keyIdVariable]: props.key.keyArn,
        [wiring.functionArnsVariable]: props.hookFunctionArns.join(','),
        [wiring.deploymentVariable]: stackName,
        POWERTOOLS_SERVICE_NAME: 'stackyard',
      },
      bundling: { ...BUNDLING, mainFields: [...BUNDLING.mainFields] },
    });
    suppressTracingWildcard(this.role);
    NagSuppressions.addResourceSuppressions(this.function, [
      {
        id: 'AwsSolutions-L1',
        reason:
          'nodejs22.x on purpose, like the API functions: the bundle targets node22 and nodejs24.x is adopted ' +
          'deliberately after the test suite runs on Node 24.',
      },
    ]);

    this.failedBatches = new sqs.Queue(this, 'FailedBatches', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    NagSuppressions.addResourceSuppressions(this.failedBatches, [
      {
        id: 'AwsSolutions-SQS3',
        reason:
          'This queue is itself a dead-letter destination: the on-failure destination of the stream mapping. It ' +
          'holds failure notices for an operator to read, so it needs no dead-letter queue of its own.',
      },
    ]);

    this.function.addEventSource(
      new DynamoEventSource(table, {
        // Events older than the mapping are picked up by the schedule, which reads the outbox itself.
        startingPosition: lambda.StartingPosition.LATEST,
        batchSize: 100,
        // Gives gsi1 (eventually consistent), where the dispatcher finds outbox events, time to show the insert.
        maxBatchingWindow: Duration.seconds(1),
        retryAttempts: 3,
        // The function never fails because of a particular record (it only reads the keys, then the table), so
        // halving a failed batch would only multiply invocations.
        bisectBatchOnError: false,
        onFailure: new SqsDlq(this.failedBatches),
        filters: [
          lambda.FilterCriteria.filter({
            eventName: lambda.FilterRule.isEqual('INSERT'),
            dynamodb: { Keys: { [props.partitionKey]: { S: lambda.FilterRule.beginsWith(wiring.outboxKeyPrefix) } } },
          }),
        ],
      }),
    );

    this.schedule = new events.Rule(this, 'Schedule', {
      description: 'Runs the Stackyard hook dispatcher every minute for retries coming due',
      schedule: events.Schedule.rate(Duration.minutes(1)),
      targets: [new targets.LambdaFunction(this.function)],
    });

    const notBreaching = {
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    };
    this.deadLetters = new cloudwatch.Metric({
      namespace: wiring.deadLetterMetric.namespace,
      metricName: wiring.deadLetterMetric.name,
      dimensionsMap: { [wiring.deadLetterMetric.dimension]: stackName },
      statistic: cloudwatch.Stats.SUM,
      period: PERIOD,
    }).createAlarm(this, 'DeadLetters', {
      alarmDescription:
        'Hook deliveries became dead letters after their last attempt: `stackyard hook deliveries <hook>` shows why; ' +
        'fix the receiver, then `stackyard hook redeliver`',
      threshold: 1,
      ...notBreaching,
    });
    this.failedBatchesVisible = this.failedBatches
      .metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: cloudwatch.Stats.MAXIMUM })
      .createAlarm(this, 'FailedBatchesVisible', {
        alarmDescription:
          'The hook dispatcher failed on stream batches after its retries: read its log; the events stay in the ' +
          'outbox and the schedule delivers them once it works again',
        threshold: 1,
        ...notBreaching,
      });
    this.errors = this.function.metricErrors({ period: PERIOD, statistic: cloudwatch.Stats.SUM }).createAlarm(this, 'Errors', {
      alarmDescription: 'The hook dispatcher fails on every run (5 in 5 minutes): hook deliveries are stuck; read its log',
      threshold: 5,
      ...notBreaching,
    });

    this.addActions(...(props.actions ?? []));
  }

  /** Notifies `actions` when any alarm fires and when it recovers. */
  addActions(...actions: cloudwatch.IAlarmAction[]): void {
    for (const alarm of [this.deadLetters, this.failedBatchesVisible, this.errors]) {
      alarm.addAlarmAction(...actions);
      alarm.addOkAction(...actions);
    }
  }
}
