import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as codebuild from 'aws-cdk-lib/aws-codebuild';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Asset } from 'aws-cdk-lib/aws-s3-assets';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { jobFunction } from './job-function.js';
import { grantDataKeysWithContext, type HandlerSpec } from './api-functions.js';

/** What the application code dictates about runner builds. */
export interface RunnerWiring {
  /** The run launcher's Lambda entry (functions/handlers/run-launcher.ts). */
  readonly launcher: HandlerSpec;
  /** The built CLI folder (dist/cli) shipped to every build as its source. */
  readonly bundleDir: string;
  /** Packages the CLI bundle leaves external, pinned (`name@version`): the build installs them. */
  readonly externals: readonly string[];
  /** Variables the code reads: the project name (launcher), the service URL (build), the run's id (override). */
  readonly projectVariable: string;
  readonly serviceUrlVariable: string;
  readonly runIdVariable: string;
  /** The encryption context `purpose` of sealed run tokens, and all of its keys. */
  readonly tokenContext: { readonly purpose: string; readonly keys: readonly string[] };
}

/** Props for {@link CodeBuildRunner}. */
export interface CodeBuildRunnerProps {
  readonly wiring: RunnerWiring;
  readonly queue: sqs.IQueue;
  readonly table: dynamodb.ITableV2;
  readonly indexNames: readonly string[];
  readonly key: kms.IKey;
  /** The state bucket's name: the launcher reads no object, but its storage settings name the bucket at cold start. */
  readonly bucketName: string;
  /** Encryption-context keys of stack data keys (the launcher opens settings secrets to claim a run). */
  readonly encryptionContextKeys: readonly string[];
  /** The API's URL, which builds talk to with the run's token. */
  readonly serviceUrl: string;
  /** The team's VPC (context value `runnerVpcId`): builds run in `subnetIds` of it. */
  readonly vpc?: ec2.IVpc;
  readonly subnetIds?: readonly string[];
  readonly logRetention?: logs.RetentionDays;
}

/**
 * The synthesized buildspec of a runner build: install the CLI bundle's external packages (skipped when the source
 * already has node_modules), then run the same runner module serve's workers run, for the one run the launcher
 * handed this build. A test runs these commands as a shell script against a local serve (test/e2e/codebuild-runner).
 */
export function runnerBuildSpec(wiring: RunnerWiring): Record<string, unknown> {
  return {
    version: '0.2',
    env: { shell: 'bash' },
    phases: {
      install: {
        'runtime-versions': { nodejs: '22' },
        commands: [
          'cd "$CODEBUILD_SRC_DIR"',
          `[ -d node_modules ] || npm install --no-save --omit=dev --ignore-scripts --no-audit --no-fund ${wiring.externals.join(' ')}`,
        ],
      },
      build: {
        commands: [`node "$CODEBUILD_SRC_DIR/stackyard.mjs" runner --run "$${wiring.runIdVariable}"`],
      },
    },
  };
}

/**
 * Where runs execute on AWS (docs/deployments.md, "On AWS"): the run launcher (a small Lambda function on the run
 * queue) claims each run and starts a build of the runner project for it. Builds run on CodeBuild's Linux standard
 * image, bill by the build minute, log to a CloudWatch log group of their own, and hold only their run's token: the
 * build role may open sealed run tokens (KMS, that purpose alone), write its log group and read its source bundle.
 */
export class CodeBuildRunner extends Construct {
  readonly project: codebuild.Project;
  readonly buildRole: iam.Role;
  readonly buildLogs: logs.LogGroup;
  readonly launcherRole: iam.Role;
  readonly launcher: NodejsFunction;

  constructor(scope: Construct, id: string, props: CodeBuildRunnerProps) {
    super(scope, id);
    const { wiring, key, table } = props;
    const stackName = Stack.of(this).stackName;
    const retention = props.logRetention ?? logs.RetentionDays.ONE_MONTH;

    const bundle = new Asset(this, 'Bundle', { path: wiring.bundleDir, exclude: ['**/*.map'] });
    this.buildLogs = new logs.LogGroup(this, 'BuildLogs', {
      logGroupName: `/stackyard/${stackName}/runner`,
      retention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.buildRole = new iam.Role(this, 'BuildRole', {
      assumedBy: new iam.ServicePrincipal('codebuild.amazonaws.com'),
      description: 'Stackyard runner builds: one deployment run each, with that run\'s token only',
    });
    this.buildRole.addToPolicy(
      new iam.PolicyStatement({
        sid: 'OpenRunToken',
        actions: ['kms:Decrypt'],
        resources: [key.keyArn],
        conditions: {
          StringEquals: { 'kms:EncryptionContext:purpose': wiring.tokenContext.purpose },
          'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': [...wiring.tokenContext.keys] },
        },
      }),
    );
    this.project = new codebuild.Project(this, 'Project', {
      description: 'Stackyard deployment runs, one build per run',
      role: this.buildRole,
      source: codebuild.Source.s3({ bucket: bundle.bucket, path: bundle.s3ObjectKey }),
      environment: {
        buildImage: codebuild.LinuxBuildImage.STANDARD_7_0,
        computeType: codebuild.ComputeType.SMALL,
        environmentVariables: { [wiring.serviceUrlVariable]: { value: props.serviceUrl } },
      },
      buildSpec: codebuild.BuildSpec.fromObject(runnerBuildSpec(wiring)),
      // A run's token lives 6 h at most; a build stops well before, and its run is then recovered as lost.
      timeout: Duration.hours(5),
      queuedTimeout: Duration.minutes(30),
      logging: { cloudWatch: { logGroup: this.buildLogs } },
      ...(props.vpc
        ? { vpc: props.vpc, subnetSelection: { subnets: (props.subnetIds ?? []).map((subnetId) => ec2.Subnet.fromSubnetId(this, `Subnet-${subnetId}`, subnetId)) } }
        : {}),
    });
    NagSuppressions.addResourceSuppressions(this.project, [
      {
        id: 'AwsSolutions-CB4',
        reason:
          'Runner builds produce no artifacts and log to CloudWatch Logs; giving the project the deployment\'s KMS key ' +
          'would grant its role unconditioned use of the key that wraps every stack\'s data keys.',
      },
    ]);
    NagSuppressions.addResourceSuppressions(
      this.buildRole,
      [
        {
          id: 'AwsSolutions-IAM5',
          reason:
            'CodeBuild\'s own grants for the project: log streams are named per build inside the runner log group, ' +
            'report groups per project, and the source bundle is one asset object; nothing beyond them.',
        },
      ],
      true,
    );

    this.launcherRole = new iam.Role(this, 'LauncherRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: 'Stackyard run launcher: claims queued runs and starts their builds',
    });
    this.launcherRole.addToPolicy(
      new iam.PolicyStatement({
        sid: 'RunItems',
        actions: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
        resources: [table.tableArn, ...props.indexNames.map((name) => `${table.tableArn}/index/${name}`)],
      }),
    );
    grantDataKeysWithContext(this.launcherRole, key, props.encryptionContextKeys);
    this.launcherRole.addToPolicy(
      new iam.PolicyStatement({
        sid: 'SealRunToken',
        actions: ['kms:Encrypt'],
        resources: [key.keyArn],
        conditions: {
          StringEquals: { 'kms:EncryptionContext:purpose': wiring.tokenContext.purpose },
          'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': [...wiring.tokenContext.keys] },
        },
      }),
    );
    this.launcherRole.addToPolicy(
      new iam.PolicyStatement({ sid: 'StartRunnerBuild', actions: ['codebuild:StartBuild'], resources: [this.project.projectArn] }),
    );
    this.launcher = jobFunction(this, 'Launcher', {
      spec: wiring.launcher,
      role: this.launcherRole,
      description: 'Stackyard run launcher',
      defaultTimeout: Duration.seconds(60),
      logRetention: retention,
      environment: {
        STACKYARD_TABLE: table.tableName,
        STACKYARD_BUCKET: props.bucketName,
        STACKYARD_KMS_KEY_ID: key.keyArn,
        [wiring.projectVariable]: this.project.projectName,
      },
    });
    // One notice at a time: each starts one build; a notice still waiting behind a live run goes back to the queue.
    this.launcher.addEventSource(new SqsEventSource(props.queue, { batchSize: 1, reportBatchItemFailures: true }));
  }
}
