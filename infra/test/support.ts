import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App, Aspects, Stack, Stage } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { INagLogger } from 'cdk-nag';
import { afterAll } from 'vitest';
import type { StackyardWiring } from '../lib/stacks/stackyard-stack.js';
import { hookWiring } from '../lib/wiring.js';

/** Account and region every test stack uses, so ARNs and service names resolve to plain strings. */
export const TEST_ENV = { account: '123456789012', region: 'eu-west-1' } as const;

const cdkJson = JSON.parse(readFileSync(fileURLToPath(new URL('../../cdk.json', import.meta.url)), 'utf8')) as {
  context: Record<string, unknown>;
};

/**
 * An App with the feature flags of `cdk.json` (so tests see what `cdk synth` produces) and, unless a test is about
 * bundling, no esbuild run.
 */
export function testApp(options: { bundle?: boolean; context?: Record<string, unknown> } = {}): App {
  return new App({
    outdir: mkdtempSync(join(testOutputRoot(), 'app-')),
    context: {
      ...cdkJson.context,
      ...(options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] }),
      ...options.context,
    },
  });
}

let outputRoot: string | undefined;
afterAll(() => {
  if (outputRoot) rmSync(outputRoot, { recursive: true, force: true });
  outputRoot = undefined;
});

/** One folder per test process for every App's cloud assembly, removed after the test file (CDK would otherwise
 * leave one `cdk.out*` folder per App in the system temp folder). */
function testOutputRoot(): string {
  if (!outputRoot) {
    outputRoot = mkdtempSync(join(tmpdir(), 'stackyard-cdk-test-'));
  }
  return outputRoot;
}

/** A bare stack to hold one construct under test. */
export function bareStack(app: App = testApp()): Stack {
  return new Stack(app, 'Bare', { env: TEST_ENV });
}

/** Path of the stand-in handler used where the real API handlers are not under test. */
export const ECHO_HANDLER = fileURLToPath(new URL('./fixtures/echo-handler.ts', import.meta.url));

/**
 * A small wiring shaped like the real one: two handlers, a few Pulumi routes, the real hook settings with the
 * stand-in handler as dispatcher, a pk/sk table with one index.
 */
export const FIXTURE_WIRING: StackyardWiring = {
  handlers: [
    { name: 'Identity', entry: ECHO_HANDLER },
    { name: 'Updates', entry: ECHO_HANDLER, memorySize: 1769 },
  ],
  routes: [
    { routeKey: 'GET /api/user', handler: 'Identity' },
    { routeKey: 'GET /api/capabilities', handler: 'Identity' },
    { routeKey: 'POST /api/stacks/{orgName}/{projectName}/{stackName}/update', handler: 'Updates' },
    { routeKey: 'PATCH /api/stacks/{orgName}/{projectName}/{stackName}/update/{updateId}/checkpoint', handler: 'Updates' },
  ],
  hooks: { ...hookWiring(), dispatcher: { name: 'HookDispatcher', entry: ECHO_HANDLER } },
  keyDesign: {
    AttributeDefinitions: [
      { AttributeName: 'pk', AttributeType: 'S' },
      { AttributeName: 'sk', AttributeType: 'S' },
      { AttributeName: 'gsi1pk', AttributeType: 'S' },
    ],
    KeySchema: [
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: 'gsi1',
        KeySchema: [{ AttributeName: 'gsi1pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }],
        Projection: { ProjectionType: 'ALL' },
      },
    ],
  },
  timeToLiveAttribute: 'ttl',
  encryptionContextKeys: ['stackyard:stack'],
};

/** What cdk-nag's AwsSolutions pack said about a stack. */
export interface NagReport {
  /** Unsuppressed findings and rule errors, as `ruleId resourcePath: info`. */
  readonly findings: string[];
  /** Suppressed findings with the written reason. */
  readonly suppressed: { ruleId: string; path: string; reason: string }[];
}

const ruleName = (d: { ruleId: string; findingId: string }) => (d.findingId ? `${d.ruleId}[${d.findingId}]` : d.ruleId);

/** Runs cdk-nag's AwsSolutions pack over the stack's app and collects what it reports. */
export function nagReport(stack: Stack): NagReport {
  const findings: string[] = [];
  const suppressed: NagReport['suppressed'] = [];
  const logger: INagLogger = {
    onCompliance: () => {},
    onNotApplicable: () => {},
    onNonCompliance: (d) => findings.push(`${ruleName(d)} ${d.resource.node.path}: ${d.ruleInfo}`),
    onError: (d) => findings.push(`${d.ruleId} ${d.resource.node.path}: rule error ${d.errorMessage}`),
    onSuppressed: (d) =>
      suppressed.push({ ruleId: `${ruleName(d)}`, path: d.resource.node.path, reason: d.suppressionReason }),
    onSuppressedError: (d) =>
      suppressed.push({ ruleId: d.ruleId, path: d.resource.node.path, reason: d.errorSuppressionReason }),
  };
  Aspects.of(stack).add(new AwsSolutionsChecks({ reports: false, additionalLoggers: [logger] }));
  try {
    Stage.of(stack)!.synth({ force: true });
  } catch (error) {
    // Unsuppressed findings fail synth validation; they are reported through `findings` instead.
    if (findings.length === 0) throw error;
  }
  return { findings, suppressed };
}

const NETWORK_GUARD = fileURLToPath(new URL('./fixtures/network-guard.cjs', import.meta.url));

/**
 * The environment of a machine with no network and no AWS credentials, for child processes: proxies on `proxy` (a
 * closed local port), no credential or config files, the EC2 metadata endpoint off, and every Node process recording
 * and refusing any TCP connection or DNS lookup (see fixtures/network-guard.cjs; read them with
 * {@link networkAttempts}).
 */
export function offlineEnv(workDir: string, proxy: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(AWS_|CDK_|HTTPS?_PROXY$|NO_PROXY$|NODE_OPTIONS$)/i.test(name)),
  );
  return {
    ...inherited,
    HTTP_PROXY: proxy,
    HTTPS_PROXY: proxy,
    http_proxy: proxy,
    https_proxy: proxy,
    npm_config_proxy: proxy,
    npm_config_https_proxy: proxy,
    AWS_CONFIG_FILE: join(workDir, 'no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(workDir, 'no-aws-credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
    NODE_OPTIONS: `--require ${NETWORK_GUARD}`,
    STACKYARD_NETWORK_LOG: join(workDir, 'network.jsonl'),
    ...extra,
  };
}

/** The connection attempts and host lookups the processes started with {@link offlineEnv} made, one JSON line each. */
export function networkAttempts(workDir: string): string[] {
  const log = join(workDir, 'network.jsonl');
  return existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
}

/** A local port nothing listens on: a proxy there refuses every connection at once. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Every resource type one deployment has: all pay-per-request or free, nothing with an hourly rate (NAT gateways,
 * endpoints, provisioned capacity).
 */
export const DEPLOYMENT_RESOURCE_TYPES: readonly string[] = [
  'AWS::ApiGatewayV2::Api',
  'AWS::ApiGatewayV2::Integration',
  'AWS::ApiGatewayV2::Route',
  'AWS::ApiGatewayV2::Stage',
  'AWS::CloudWatch::Alarm',
  'AWS::DynamoDB::GlobalTable',
  'AWS::Events::Rule',
  'AWS::IAM::Policy',
  'AWS::IAM::Role',
  'AWS::KMS::Alias',
  'AWS::KMS::Key',
  'AWS::Lambda::EventInvokeConfig',
  'AWS::Lambda::EventSourceMapping',
  'AWS::Lambda::Function',
  'AWS::Lambda::Permission',
  'AWS::Logs::LogGroup',
  'AWS::S3::Bucket',
  'AWS::S3::BucketPolicy',
  'AWS::SQS::Queue',
  'AWS::SQS::QueuePolicy',
];
