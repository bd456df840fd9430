import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { FUNCTION_TRACING, suppressTracingWildcard } from './tracing.js';

/** One Lambda entry point: a middy-wrapped handler module under `functions/handlers/`. */
export interface HandlerSpec {
  /** Stable name; becomes part of the construct id, so renaming it replaces the function. */
  readonly name: string;
  /** Absolute path of the TypeScript entry file. */
  readonly entry: string;
  /** Exported handler name. */
  readonly handler?: string;
  readonly memorySize?: number;
  readonly timeout?: Duration;
  /**
   * A built web console (`npm run build` → dist/console) to ship as `console/` beside the bundle; the handler serves
   * it for paths outside /api/. Absent from the bundle when the folder was not built (those paths then say so).
   */
  readonly consoleDir?: string;
}

/** Props for {@link ApiFunctions}. */
export interface ApiFunctionsProps {
  readonly handlers: readonly HandlerSpec[];
  readonly table: dynamodb.ITableV2;
  /** Global secondary indexes the handlers query; each is granted by name, never `index/*`. */
  readonly indexNames?: readonly string[];
  readonly bucket: s3.IBucket;
  readonly key: kms.IKey;
  /**
   * Encryption-context keys the key service puts on every data key. The functions may call KMS directly only with a
   * context made of exactly these keys, so the role cannot decrypt what S3 (context `aws:s3:arn`) or anyone else
   * encrypted under the same key.
   */
  readonly encryptionContextKeys: readonly string[];
  readonly logRetention?: logs.RetentionDays;
}

/**
 * Modules the Lambda bundles replace (esbuild `alias`), each with the narrower module that does all a function asks
 * of it (infra/test/lambda-bundles.test.ts holds each to that):
 * - The SDK's default credential chain becomes the environment variables alone: Lambda gives every function its
 *   role's credentials there, and the rest of the chain (SSO, profiles, web identity, instance metadata, with the STS
 *   and SSO clients they carry) is about 100 KB no invocation runs.
 * - `semver` becomes its own `gte`, the only function its one importer in the bundles (the X-Ray SDK's v2 SDK
 *   patcher, loaded by the Powertools Tracer) calls: about 20 KB less in every bundle.
 * - The event-stream codec becomes a marshaller and serde that refuse to be used: only S3's SelectObjectContent and
 *   Lambda's InvokeWithResponseStream stream events, no function sends either, and every bundle carried the codec
 *   (about 15 KB) because the clients and protocols name it whether or not an operation streams.
 */
export const LAMBDA_ALIASES: Readonly<Record<string, string>> = {
  '@aws-sdk/credential-provider-node': fileURLToPath(new URL('../../../functions/lambda-credentials.ts', import.meta.url)),
  semver: fileURLToPath(new URL('../../../functions/lambda-semver.cjs', import.meta.url)),
  '@smithy/core/event-streams': fileURLToPath(new URL('../../../functions/lambda-event-streams.ts', import.meta.url)),
};

/**
 * Esbuild options shared by every handler: ESM for top-level await and tree shaking; the banner gives CommonJS
 * dependencies that call `require` a working one; the pinned SDK is bundled so production runs the version the tests
 * ran, less the credential providers Lambda never uses (`LAMBDA_ALIASES`). The source map ships in the asset for
 * reading stack traces offline; the functions do not set `--enable-source-maps`, so no cold start parses it.
 */
export const BUNDLING = {
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  target: 'node22',
  format: OutputFormat.ESM,
  mainFields: ['module', 'main'],
  banner: "import { createRequire as __stackyardCreateRequire } from 'node:module'; const require = __stackyardCreateRequire(import.meta.url);",
  bundleAwsSDK: true,
  forceDockerBundling: false,
  esbuildArgs: { '--alias': Object.entries(LAMBDA_ALIASES).map(([module, replacement]) => `${module}=${replacement}`) },
} as const;

/**
 * Lets `role` wrap and unwrap stack data keys with the deployment's key, only with an encryption context made of
 * exactly `contextKeys` (the core's), so the role cannot decrypt what S3 or another purpose encrypted under the key.
 */
export function grantDataKeysWithContext(role: iam.IRole, key: kms.IKey, contextKeys: readonly string[]): void {
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'DataKeysWithContext',
      actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
      resources: [key.keyArn],
      conditions: {
        'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': [...contextKeys] },
        StringLike: Object.fromEntries(contextKeys.map((k) => [`kms:EncryptionContext:${k}`, '*'])),
      },
    }),
  );
}

/** Copies a built console into the bundle after esbuild ran (local bundling: a shell command on this machine). */
function consoleCopy(consoleDir: string) {
  const quoted = (path: string) => `'${path.replace(/'/g, "'\\''")}'`;
  return {
    beforeBundling: () => [],
    beforeInstall: () => [],
    afterBundling: (_inputDir: string, outputDir: string) => [
      `if [ -f ${quoted(`${consoleDir}/index.html`)} ]; then cp -R ${quoted(consoleDir)} ${quoted(`${outputDir}/console`)}; fi`,
    ],
  };
}

/** Every API handler as a `NodejsFunction`, sharing one least-privilege role. */
export class ApiFunctions extends Construct {
  /** The role all handlers run as. */
  readonly role: iam.Role;
  /** Functions by handler name. */
  readonly functions: ReadonlyMap<string, NodejsFunction>;

  constructor(scope: Construct, id: string, props: ApiFunctionsProps) {
    super(scope, id);
    if (props.encryptionContextKeys.length === 0) throw new Error('encryptionContextKeys must not be empty');

    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: 'Stackyard API handlers',
    });
    this.grantStorage(props);

    const functions = new Map<string, NodejsFunction>();
    for (const spec of props.handlers) {
      const logGroup = new logs.LogGroup(this, `${spec.name}Logs`, {
        logGroupName: `/stackyard/${Stack.of(this).stackName}/functions/${spec.name}`,
        retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
        removalPolicy: RemovalPolicy.DESTROY,
      });
      logGroup.grantWrite(this.role);
      const fn = new NodejsFunction(this, spec.name, {
        entry: spec.entry,
        handler: spec.handler ?? 'handler',
        description: `Stackyard API: ${spec.name}`,
        runtime: lambda.Runtime.NODEJS_22_X,
        architecture: lambda.Architecture.ARM_64,
        // Checkpoints arrive gzipped and are parsed as JSON; memory also buys CPU for that.
        memorySize: spec.memorySize ?? 1024,
        // The HTTP API integration gives up at 29 s (its default); stopping just before lets the failure be logged here.
        timeout: spec.timeout ?? Duration.seconds(28),
        role: this.role,
        logGroup,
        tracing: FUNCTION_TRACING,
        environment: {
          STACKYARD_TABLE: props.table.tableName,
          STACKYARD_BUCKET: props.bucket.bucketName,
          STACKYARD_KMS_KEY_ID: props.key.keyArn,
          POWERTOOLS_SERVICE_NAME: 'stackyard',
        },
        bundling: {
          ...BUNDLING,
          mainFields: [...BUNDLING.mainFields],
          ...(spec.consoleDir ? { commandHooks: consoleCopy(spec.consoleDir) } : {}),
        },
      });
      NagSuppressions.addResourceSuppressions(fn, [
        {
          id: 'AwsSolutions-L1',
          reason:
            'nodejs22.x on purpose: the bundle targets node22, the code is developed and tested on Node 20/22, and ' +
            'nodejs24.x is adopted deliberately after the test suite runs on Node 24.',
        },
      ]);
      functions.set(spec.name, fn);
    }
    this.functions = functions;
    // After the functions: their tracing grant is what puts the statement on the role's policy.
    suppressTracingWildcard(this.role);
  }

  private grantStorage(props: ApiFunctionsProps): void {
    const { table, bucket, key } = props;
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'TableItems',
        actions: [
          'dynamodb:GetItem',
          'dynamodb:Query',
          'dynamodb:PutItem',
          'dynamodb:UpdateItem',
          'dynamodb:DeleteItem',
          'dynamodb:BatchWriteItem',
        ],
        resources: [table.tableArn, ...(props.indexNames ?? []).map((name) => `${table.tableArn}/index/${name}`)],
      }),
    );
    NagSuppressions.addResourceSuppressions(
      this.role,
      [
        {
          id: 'AwsSolutions-IAM5',
          reason:
            'Checkpoint, history and secret objects are created per stack and update at run time, so object access ' +
            'is scoped to this one bucket and these two object actions, not to fixed keys.',
          appliesTo: [{ regex: '/^Resource::<.*\\.Arn>\\/\\*$/' }],
        },
        {
          id: 'AwsSolutions-IAM5',
          reason: 'Policy pack tarballs are named by organization, pack and version at publish time; deleting a pack version may remove only objects under the policypacks/ prefix.',
          appliesTo: [{ regex: '/^Resource::<.*\\.Arn>\\/v1\\/policypacks\\/\\*$/' }],
        },
        {
          id: 'AwsSolutions-IAM5',
          reason: "Deployment runs' program archives are named by stack and archive id at upload time; removing a stack may remove only objects under the deploysources/ prefix.",
          appliesTo: [{ regex: '/^Resource::<.*\\.Arn>\\/v1\\/deploysources\\/\\*$/' }],
        },
      ],
      true,
    );
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'BucketObjects',
        // Objects are write-once (the checkpoint store's guarantee), so the functions get no s3:DeleteObject: a bug
        // or a stolen role cannot remove history, and overwrites are refused by the conditional put. Every object is
        // one PutObject, so no multipart upload is ever started or aborted.
        actions: ['s3:GetObject', 's3:PutObject'],
        resources: [bucket.arnForObjects('*')],
      }),
    );
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'PolicyPackObjectsDelete',
        // Deleting a policy pack version removes its tarball: the one delete the functions may make, and only under
        // the pack prefix, so state and history objects stay write-once.
        actions: ['s3:DeleteObject'],
        resources: [bucket.arnForObjects('v1/policypacks/*')],
      }),
    );
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'SourceArchiveObjectsDelete',
        // Removing a stack removes the program archives its runs were queued with (docs/deployments.md), only under
        // their prefix.
        actions: ['s3:DeleteObject'],
        resources: [bucket.arnForObjects('v1/deploysources/*')],
      }),
    );
    // Without ListBucket a missing object reads as 403 instead of 404, and the adapter could not tell "absent".
    this.role.addToPolicy(
      new iam.PolicyStatement({ sid: 'BucketList', actions: ['s3:ListBucket'], resources: [bucket.bucketArn] }),
    );
    grantDataKeysWithContext(this.role, key, props.encryptionContextKeys);
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'BucketEncryptionViaS3',
        actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
        resources: [key.keyArn],
        conditions: {
          StringEquals: { 'kms:ViaService': `s3.${Stack.of(this).region}.amazonaws.com` },
          // With a bucket key S3 sends the bucket ARN; without one, the object ARN.
          StringLike: { 'kms:EncryptionContext:aws:s3:arn': [bucket.bucketArn, bucket.arnForObjects('*')] },
        },
      }),
    );
  }
}
