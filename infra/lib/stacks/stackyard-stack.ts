import { CfnOutput, Stack } from 'aws-cdk-lib';
import type { StackProps } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { StreamViewType } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { ApiAlarms } from '../constructs/api-alarms.js';
import { ApiFunctions } from '../constructs/api-functions.js';
import type { HandlerSpec } from '../constructs/api-functions.js';
import { DataKey } from '../constructs/data-key.js';
import { HookDispatcher, grantHookFunctionInvoke, grantHookSecrets } from '../constructs/hook-dispatcher.js';
import type { HookWiring } from '../constructs/hook-dispatcher.js';
import { StackyardHttpApi } from '../constructs/http-api.js';
import type { CustomDomain, RouteBinding } from '../constructs/http-api.js';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { CodeBuildRunner, type RunnerWiring } from '../constructs/codebuild-runner.js';
import { RunQueue } from '../constructs/run-queue.js';
import { ScheduleFiring, type ScheduleFiringWiring } from '../constructs/schedule-firing.js';
import type { RunnerNetwork } from '../settings.js';
import { StateBucket } from '../constructs/state-bucket.js';
import { RUN_QUEUE_URL_VARIABLE } from '../../../shared/adapters/aws/sqs-run-queue.js';
import { StateTable } from '../constructs/state-table.js';
import type { KeyDesign } from '../constructs/state-table.js';

/** The functions' environment variable holding the URL users log in with (what the CLI records in state). */
export const PUBLIC_URL_VARIABLE = 'STACKYARD_PUBLIC_URL';

/**
 * What the application code dictates: the API's handlers and routes, the hook dispatcher, the AWS adapter's table
 * and key usage.
 */
export interface StackyardWiring {
  readonly handlers: readonly HandlerSpec[];
  readonly routes: readonly RouteBinding[];
  readonly hooks: HookWiring;
  readonly keyDesign: KeyDesign;
  readonly timeToLiveAttribute: string;
  readonly encryptionContextKeys: readonly string[];
  /** Runner builds on CodeBuild for deployment runs; without it runs are queued but nothing on AWS runs them. */
  readonly runner?: RunnerWiring;
  /** Stack schedules on EventBridge Scheduler; without it schedules are stored but nothing on AWS fires them. */
  readonly schedules?: ScheduleFiringWiring;
}

/** Props for {@link StackyardStack}. */
export interface StackyardStackProps extends StackProps {
  readonly wiring: StackyardWiring;
  readonly customDomain?: CustomDomain;
  readonly alarmActions?: readonly cloudwatch.IAlarmAction[];
  /**
   * Lambda functions hooks may invoke (context value `hookFunctionArns`): the only ones the API functions (gates,
   * ping, redeliver) and the dispatcher get `lambda:InvokeFunction` on, and the only ones hooks may name.
   */
  readonly hookFunctionArns?: readonly string[];
  /** The team's VPC and private subnets runner builds run in (context `runnerVpcId`, `runnerSubnetIds`). */
  readonly runnerNetwork?: RunnerNetwork;
}

/** One Stackyard deployment: storage, key, handlers, HTTP API, hook dispatcher and alarms. */
export class StackyardStack extends Stack {
  readonly dataKey: DataKey;
  readonly stateBucket: StateBucket;
  readonly stateTable: StateTable;
  readonly apiFunctions: ApiFunctions;
  readonly httpApi: StackyardHttpApi;
  readonly alarms: ApiAlarms;
  readonly hookDispatcher: HookDispatcher;
  /** The queue of deployment runs the API announces each queued run on. */
  readonly runQueue: RunQueue;
  /** The run launcher and the CodeBuild runner project (when the wiring has a runner). */
  readonly runner?: CodeBuildRunner;
  /** The schedule group, the fire function and the Scheduler's role (when the wiring has schedules). */
  readonly scheduleFiring?: ScheduleFiring;

  constructor(scope: Construct, id: string, props: StackyardStackProps) {
    super(scope, id, props);
    const { wiring } = props;
    const hookFunctionArns = props.hookFunctionArns ?? [];
    const indexNames = wiring.keyDesign.GlobalSecondaryIndexes?.map((index) => index.IndexName!) ?? [];

    this.dataKey = new DataKey(this, 'DataKey', { aliasName: this.stackName.toLowerCase() });
    this.stateBucket = new StateBucket(this, 'StateBucket', { encryptionKey: this.dataKey.key });
    this.stateTable = new StateTable(this, 'StateTable', {
      keyDesign: wiring.keyDesign,
      timeToLiveAttribute: wiring.timeToLiveAttribute,
      // The dispatcher only needs to know that an outbox item was inserted; it reads the item from the table.
      stream: StreamViewType.KEYS_ONLY,
    });
    this.apiFunctions = new ApiFunctions(this, 'Functions', {
      handlers: wiring.handlers,
      table: this.stateTable.table,
      indexNames,
      bucket: this.stateBucket.bucket,
      key: this.dataKey.key,
      encryptionContextKeys: wiring.encryptionContextKeys,
    });
    this.httpApi = new StackyardHttpApi(this, 'Api', {
      routes: wiring.routes,
      functions: this.apiFunctions.functions,
      customDomain: props.customDomain,
    });
    // The URL recorded as `secrets_providers.state.url` in every checkpoint. No cycle: the API resource itself does not
    // depend on the functions (routes and integrations are separate resources), so a function may name its endpoint.
    this.runQueue = new RunQueue(this, 'Runs');
    // Queueing a run (the API's POST …/deployments, on the updates function) announces it; the shared role sends.
    this.runQueue.grantAnnounce(this.apiFunctions.role);
    for (const fn of this.apiFunctions.functions.values()) {
      fn.addEnvironment(PUBLIC_URL_VARIABLE, this.httpApi.loginUrl);
      fn.addEnvironment(RUN_QUEUE_URL_VARIABLE, this.runQueue.queue.queueUrl);
      fn.addEnvironment(wiring.hooks.functionArnsVariable, hookFunctionArns.join(','));
    }
    // Gates are invoked by updates.start (RequestResponse), ping and redeliver by the hook routes; any function can
    // serve any route, so the shared role gets the permission.
    grantHookFunctionInvoke(this.apiFunctions.role, hookFunctionArns);
    // `hook add` seals signing secrets; deliveries made by ping, redeliver and gates open them.
    grantHookSecrets(this.apiFunctions.role, this.dataKey.key, wiring.hooks, ['kms:GenerateDataKey', 'kms:Decrypt']);
    this.alarms = new ApiAlarms(this, 'Alarms', {
      api: this.httpApi.api,
      functions: [...this.apiFunctions.functions.values()],
      actions: props.alarmActions,
    });
    if (wiring.runner) {
      const network = props.runnerNetwork;
      this.runner = new CodeBuildRunner(this, 'Runner', {
        wiring: wiring.runner,
        queue: this.runQueue.queue,
        table: this.stateTable.table,
        indexNames,
        key: this.dataKey.key,
        bucketName: this.stateBucket.bucket.bucketName,
        encryptionContextKeys: wiring.encryptionContextKeys,
        serviceUrl: this.httpApi.loginUrl,
        ...(network ? { vpc: ec2.Vpc.fromVpcAttributes(this, 'RunnerVpc', { vpcId: network.vpcId, availabilityZones: this.availabilityZones }), subnetIds: network.subnetIds } : {}),
      });
    }
    if (wiring.schedules) {
      this.scheduleFiring = new ScheduleFiring(this, 'Schedules', {
        wiring: wiring.schedules,
        table: this.stateTable.table,
        indexNames,
        key: this.dataKey.key,
        encryptionContextKeys: wiring.encryptionContextKeys,
        runQueue: this.runQueue.queue,
        bucketName: this.stateBucket.bucket.bucketName,
      });
      // The schedule routes (on the updates function) keep the triggers; the shared role gets the rights.
      this.scheduleFiring.grantManage(this.apiFunctions.role, this.apiFunctions.functions.values());
    }
    const partitionKey = wiring.keyDesign.KeySchema?.find((key) => key.KeyType === 'HASH')?.AttributeName;
    if (!partitionKey) throw new Error('key design: the table has no HASH key');
    this.hookDispatcher = new HookDispatcher(this, 'Hooks', {
      wiring: wiring.hooks,
      table: this.stateTable.table,
      partitionKey,
      indexNames,
      hookFunctionArns,
      key: this.dataKey.key,
      actions: props.alarmActions,
    });

    new CfnOutput(this, 'LoginUrl', {
      description: 'pulumi login <this URL> / stackyard login <this URL>',
      value: this.httpApi.loginUrl,
    });
    new CfnOutput(this, 'TableName', {
      description: 'stackyard admin bootstrap --table <this name>',
      value: this.stateTable.table.tableName,
    });
    new CfnOutput(this, 'BucketName', { value: this.stateBucket.bucket.bucketName });
    new CfnOutput(this, 'KeyArn', { value: this.dataKey.key.keyArn });
    new CfnOutput(this, 'KeyAlias', { value: this.dataKey.alias.aliasName });
    new CfnOutput(this, 'RunQueueUrl', { description: 'The queue of deployment runs', value: this.runQueue.queue.queueUrl });
    if (this.httpApi.domainName) {
      new CfnOutput(this, 'DomainTarget', {
        description: 'Point a CNAME (or a Route 53 alias record) for the custom domain at this name',
        value: this.httpApi.domainName.regionalDomainName,
      });
    }
  }

  /** Notifies `actions` when any alarm of the deployment fires and when it recovers. */
  addAlarmActions(...actions: cloudwatch.IAlarmAction[]): void {
    this.alarms.addActions(...actions);
    this.hookDispatcher.addActions(...actions);
  }
}
