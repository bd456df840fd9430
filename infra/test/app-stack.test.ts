import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { App, CfnElement } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_URL_VARIABLE, StackyardStack } from '../lib/stacks/stackyard-stack.js';
import type { StackyardStackProps } from '../lib/stacks/stackyard-stack.js';
import { dataKeyContext } from '../../shared/core/secrets/secrets-envelope.js';
import { apiWiring } from '../lib/wiring.js';
import { PULUMI_CLI_ROUTE_KEYS, routeShape } from './fixtures/pulumi-cli-routes.js';
import { DEPLOYMENT_RESOURCE_TYPES, TEST_ENV, closedPort, nagReport, networkAttempts, offlineEnv, testApp } from './support.js';

const INVOKE_BUNDLE = fileURLToPath(new URL('./fixtures/invoke-bundle.mjs', import.meta.url));

/** The four API functions, one per concern. */
const HANDLER_NAMES = ['Identity', 'Stacks', 'Updates', 'Secrets'] as const;
type HandlerName = (typeof HANDLER_NAMES)[number];

const CERTIFICATE_ARN = 'arn:aws:acm:eu-west-1:123456789012:certificate/0f0f0f0f-1111-2222-3333-444444444444';

/**
 * The concern each Pulumi CLI route belongs to: secret encryption, the update lifecycle (create, start, lease,
 * checkpoints, events, complete, cancel), the stacks under `/api/stacks/` and the user's stack list, and identity for
 * the rest (the user, the default organization, capabilities).
 */
function concernOf(routeKey: string): HandlerName {
  const path = routeKey.split(' ')[1]!;
  if (/\/(batch-)?(en|de)crypt(\/log-(batch-)?decryption)?$/.test(path)) return 'Secrets';
  if (/\/\{[^}]+\}\/(update|preview|refresh|destroy)$/.test(path) || /\/update\/\{[^}]+\}/.test(path)) return 'Updates';
  if (path.startsWith('/api/stacks/') || path === '/api/user/stacks') return 'Stacks';
  return 'Identity';
}

const ADMIN_ROUTE_KEYS = [
  'POST /api/users',
  'POST /api/orgs',
  'GET /api/orgs',
  'POST /api/orgs/{o}/members',
  'POST /api/user/tokens',
  'GET /api/user/tokens',
  'DELETE /api/user/tokens/{t}',
];

function synthesize(app: App, props: Partial<StackyardStackProps> = {}) {
  const stack = new StackyardStack(app, 'Stackyard', { env: TEST_ENV, wiring: apiWiring(), ...props });
  return { stack, template: Template.fromStack(stack) };
}

/** The API functions' resources (the hook dispatcher is the template's fifth function). */
function apiFunctionResources(template: Template) {
  return Object.values(template.findResources('AWS::Lambda::Function', { Properties: { Description: Match.stringLikeRegexp('^Stackyard API: ') } }));
}

/** Handler name of each function's logical id, taken from the constructs rather than from id patterns. */
function handlerByLogicalId(stack: StackyardStack): Map<string, HandlerName> {
  return new Map(
    HANDLER_NAMES.map((name) => [stack.getLogicalId(stack.apiFunctions.functions.get(name)!.node.defaultChild as CfnElement), name]),
  );
}

/** Route key (parameter names blanked) → the handler its integration invokes. */
function routedHandlers(stack: StackyardStack, template: Template): Map<string, HandlerName | undefined> {
  const handlers = handlerByLogicalId(stack);
  const integrations = template.findResources('AWS::ApiGatewayV2::Integration');
  const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route'));
  return new Map(
    routes.map((route) => {
      const integrationId = route.Properties.Target['Fn::Join'][1][1].Ref as string;
      const functionId = integrations[integrationId]!.Properties.IntegrationUri['Fn::GetAtt'][0] as string;
      return [routeShape(route.Properties.RouteKey as string), handlers.get(functionId)];
    }),
  );
}

/** Logical ids each resource refers to: Ref, Fn::GetAtt, ${X} in Fn::Sub, DependsOn. */
function referencesOf(resource: Record<string, unknown>, ids: Set<string>): Set<string> {
  const found = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (value === null || typeof value !== 'object') return;
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'Ref' && typeof inner === 'string' && ids.has(inner)) found.add(inner);
      else if (key === 'Fn::GetAtt' && Array.isArray(inner) && ids.has(inner[0])) found.add(inner[0]);
      else if (key === 'Fn::Sub') {
        const text = Array.isArray(inner) ? inner[0] : inner;
        for (const match of String(text).matchAll(/\$\{([A-Za-z0-9]+)/g)) if (ids.has(match[1]!)) found.add(match[1]!);
        visit(inner);
      } else visit(inner);
    }
  };
  visit(resource.Properties);
  for (const dependency of [resource.DependsOn ?? []].flat()) if (ids.has(dependency as string)) found.add(dependency as string);
  return found;
}

/** A dependency cycle among the template's resources (CloudFormation refuses to deploy one), or undefined. */
function dependencyCycle(template: Template): string[] | undefined {
  const resources = template.toJSON().Resources as Record<string, Record<string, unknown>>;
  const ids = new Set(Object.keys(resources));
  const edges = new Map([...ids].map((id) => [id, referencesOf(resources[id]!, ids)]));
  const state = new Map<string, 'visiting' | 'done'>();
  const path: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === 'done') return undefined;
    if (state.get(id) === 'visiting') return [...path.slice(path.indexOf(id)), id];
    state.set(id, 'visiting');
    path.push(id);
    for (const next of edges.get(id)!) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const id of ids) {
    const cycle = visit(id);
    if (cycle) return cycle;
  }
  return undefined;
}

describe('the Stackyard stack with the real API wiring (handlers bundled by the local esbuild)', () => {
  let app: App;
  let stack: StackyardStack;
  let template: Template;

  beforeAll(() => {
    app = testApp({ bundle: true });
    ({ stack, template } = synthesize(app));
  });

  it('routes every route key the Pulumi CLI calls, each to the function of its concern', () => {
    const routed = routedHandlers(stack, template);

    const expected = PULUMI_CLI_ROUTE_KEYS.map((key) => [key, concernOf(key)]);
    const actual = PULUMI_CLI_ROUTE_KEYS.map((key) => [key, routed.get(routeShape(key))]);

    expect(actual).toEqual(expected);
    expect(new Set(expected.map(([, concern]) => concern))).toEqual(new Set(HANDLER_NAMES));
  });

  it('sends the administration API, the OpenAPI document and every request no route matches ($default) to the Identity function', () => {
    const routed = routedHandlers(stack, template);

    expect(routed.get('$default')).toBe('Identity');
    expect(routed.get(routeShape('GET /api/openapi.json'))).toBe('Identity');
    expect(ADMIN_ROUTE_KEYS.map((key) => routed.get(routeShape(key)))).toEqual(ADMIN_ROUTE_KEYS.map(() => 'Identity'));
    template.resourceCountIs('AWS::ApiGatewayV2::Route', apiWiring().routes.length);
  });

  it('uses one parameter name per path position in every route', () => {
    const namesAt = new Map<string, Set<string>>();
    for (const { routeKey } of apiWiring().routes) {
      const segments = routeKey.split(' ')[1]?.split('/') ?? [];
      segments.forEach((segment, i) => {
        if (!segment.startsWith('{')) return;
        const prefix = routeShape(segments.slice(0, i).join('/'));
        namesAt.set(prefix, (namesAt.get(prefix) ?? new Set()).add(segment));
      });
    }

    const ambiguous = [...namesAt].filter(([, names]) => names.size > 1).map(([prefix, names]) => `${prefix}: ${[...names]}`);

    expect(ambiguous).toEqual([]);
  });

  it('runs the four handlers of functions/handlers on nodejs22.x/arm64 with the storage variables and the API URL', () => {
    const functions = apiFunctionResources(template);

    // The four API functions, the hook dispatcher, the run launcher and the schedule fire function.
    template.resourceCountIs('AWS::Lambda::Function', 7);
    expect(functions).toHaveLength(4);
    for (const fn of functions) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        Environment: {
          Variables: {
            STACKYARD_TABLE: { Ref: expect.stringMatching(/^StateTable/) },
            STACKYARD_BUCKET: { Ref: expect.stringMatching(/^StateBucket/) },
            STACKYARD_KMS_KEY_ID: { 'Fn::GetAtt': [expect.stringMatching(/^DataKey/), 'Arn'] },
            STACKYARD_HOOK_FUNCTION_ARNS: '',
            [PUBLIC_URL_VARIABLE]: stack.resolve(stack.httpApi.api.apiEndpoint),
          },
        },
      });
    }
  });

  it('gives the functions that move whole deployments 1024 MB and 28 s, Identity 512 MB and 10 s', () => {
    const sizes = Object.fromEntries(
      Object.values(template.findResources('AWS::Lambda::Function')).map((fn) => [
        (fn.Properties.Description as string).replace('Stackyard API: ', ''),
        [fn.Properties.MemorySize, fn.Properties.Timeout],
      ]),
    );

    expect(sizes).toEqual({
      Identity: [512, 10],
      Stacks: [1024, 28],
      Updates: [1024, 28],
      Secrets: [1024, 28],
      'Stackyard hook dispatcher': [512, 60],
      'Stackyard run launcher': [512, 60],
      'Stackyard schedule fire function': [512, 30],
    });
    // The heavy functions stop before the HTTP API gives up on them (29 s), so their own timeout is logged.
    const integrationTimeouts = Object.values(template.findResources('AWS::ApiGatewayV2::Integration')).map(
      (i) => i.Properties.TimeoutInMillis ?? 29_000,
    );
    expect(Math.min(...integrationTimeouts)).toBeGreaterThan(28_000);
  });

  it('bundles each handler into an ESM module that, run as Lambda runs it, answers in the Pulumi error shape offline', async () => {
    const assembly = app.synth();
    const workDir = mkdtempSync(join(tmpdir(), 'stackyard-bundles-'));
    const requests = [
      { method: 'GET', path: '/api/agents/signup' },
      { method: 'GET', path: '/api/user' },
      { method: 'GET', path: '/acme/web/dev' },
    ];
    writeFileSync(join(workDir, 'requests.json'), JSON.stringify(requests));
    const env = offlineEnv(workDir, `http://127.0.0.1:${await closedPort()}`, {
      AWS_REGION: 'eu-west-1',
      STACKYARD_TABLE: 'stackyard-test',
      STACKYARD_BUCKET: 'stackyard-test',
      STACKYARD_KMS_KEY_ID: 'alias/stackyard-test',
      [PUBLIC_URL_VARIABLE]: 'https://pulumi.example.com',
    });

    try {
      const answers = await Promise.all(
        apiFunctionResources(template).map(async (fn) => {
          const assetDir = join(assembly.directory, `asset.${(fn.Properties.Code.S3Key as string).replace(/\.zip$/, '')}`);
          const results = join(workDir, `${fn.Properties.Description}.json`);
          await promisify(execFile)(process.execPath, [INVOKE_BUNDLE, join(assetDir, 'index.mjs'), join(workDir, 'requests.json'), results], {
            env,
            timeout: 30_000,
          });
          return [fn.Properties.Description as string, [readdirSync(assetDir).sort(), JSON.parse(readFileSync(results, 'utf8'))]] as const;
        }),
      );

      // Identity takes API Gateway's `$default`: an unknown path is a 404, its own `GET /api/user` wants a token (401),
      // and console pages come from it alone, as it alone carries the built console. The other functions carry only
      // their own routes, so whatever else reaches them was mis-routed, and they say so (404).
      const identity = [
        ['console', 'index.mjs', 'index.mjs.map'],
        [
          { statusCode: 404, body: expect.objectContaining({ code: 404, message: expect.stringMatching(/not served/) }) },
          { statusCode: 401, body: expect.objectContaining({ code: 401, message: expect.stringMatching(/token/) }) },
          { statusCode: 200, body: expect.stringContaining('<title>Stackyard</title>') },
        ],
      ];
      const other = (group: string) => [
        ['index.mjs', 'index.mjs.map'],
        requests.map(({ method, path }) => ({
          statusCode: 404,
          body: expect.objectContaining({ code: 404, message: expect.stringContaining(`${method} ${path} is not a route of the ${group} function`) }),
        })),
      ];
      // Four different bundles, one per function (each carries only its own routes and clients).
      expect(new Set(apiFunctionResources(template).map((fn) => fn.Properties.Code.S3Key)).size).toBe(4);
      expect(Object.fromEntries(answers)).toEqual({
        'Stackyard API: Identity': identity,
        'Stackyard API: Stacks': other('stacks'),
        'Stackyard API: Updates': other('updates'),
        'Stackyard API: Secrets': other('secrets'),
      });
      expect(networkAttempts(workDir)).toEqual([]);
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
  });

  it('traces every function with X-Ray (active tracing), and lets each function role write traces', () => {
    const functions = Object.values(template.findResources('AWS::Lambda::Function'));
    const policies = Object.values(template.findResources('AWS::IAM::Policy'));
    const xrayRoles = new Set(
      policies
        .filter((policy) =>
          (policy.Properties.PolicyDocument.Statement as Array<{ Action: string | string[]; Resource: unknown }>).some(
            (statement) => [statement.Action].flat().includes('xray:PutTraceSegments') && statement.Resource === '*',
          ),
        )
        .flatMap((policy) => (policy.Properties.Roles as Array<{ Ref: string }>).map((role) => role.Ref)),
    );

    expect(functions.length).toBe(7);
    expect(functions.map((fn) => fn.Properties.TracingConfig)).toEqual(functions.map(() => ({ Mode: 'Active' })));
    for (const fn of functions) expect(xrayRoles.has(fn.Properties.Role['Fn::GetAtt'][0])).toBe(true);
  });

  it('has no dependency cycle: the functions may name the API URL because the API resource does not need them', () => {
    expect(dependencyCycle(template)).toBeUndefined();
  });

  it('lets the functions use the key directly only with the encryption context the core binds data keys to', () => {
    const contextKeys = Object.keys(dataKeyContext('0b6f'));

    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Sid: 'DataKeysWithContext',
            Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
            Condition: {
              'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': contextKeys },
              StringLike: Object.fromEntries(contextKeys.map((key) => [`kms:EncryptionContext:${key}`, '*'])),
            },
          }),
        ]),
      },
    });
    expect(contextKeys).toEqual(['stackId']);
  });

  it('gives every function that opens the storage all three settings its cold start reads (table, bucket, key)', () => {
    // awsStorageOptionsFromEnv refuses to start without any of them, even in a function that never reads the bucket
    const storageFunctions = Object.entries(template.findResources('AWS::Lambda::Function'))
      .map(([id, fn]) => ({ id, variables: Object.keys((fn.Properties.Environment?.Variables ?? {}) as Record<string, unknown>) }))
      .filter((fn) => fn.variables.includes('STACKYARD_TABLE'))
      // the hook dispatcher opens the table and the key itself (functions/handlers/hook-dispatcher.ts), not the storage
      .filter((fn) => !fn.id.startsWith('HooksFunction'));

    const incomplete = storageFunctions.filter((fn) => !['STACKYARD_BUCKET', 'STACKYARD_KMS_KEY_ID'].every((name) => fn.variables.includes(name)));

    expect(storageFunctions.length).toBeGreaterThanOrEqual(5);
    expect(incomplete.map((fn) => fn.id)).toEqual([]);
  });

  it('alarms on the throttles of all four functions', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Metrics: Match.arrayWith([Match.objectLike({ Expression: 'SUM([t0, t1, t2, t3])' })]),
    });
  });

  it('outputs the login URL, table, bucket, key and run queue', () => {
    const outputs = Object.keys(template.findOutputs('*')).sort();

    expect(outputs).toEqual(['BucketName', 'KeyAlias', 'KeyArn', 'LoginUrl', 'RunQueueUrl', 'TableName']);
    template.hasOutput('LoginUrl', { Value: stack.resolve(stack.httpApi.api.apiEndpoint) });
  });

  it('has exactly the idle cost drivers docs/deploy.md prices: one KMS key, nine alarm metrics, one schedule', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    const alarmMetrics = alarms
      .map((alarm) =>
        alarm.Properties.MetricName
          ? 1
          : (alarm.Properties.Metrics as Array<{ MetricStat?: unknown }>).filter((m) => m.MetricStat).length,
      )
      .reduce((a, b) => a + b, 0);
    const types = Object.values(template.toJSON().Resources as Record<string, { Type: string }>).map((r) => r.Type);

    template.resourceCountIs('AWS::KMS::Key', 1);
    expect(alarms).toHaveLength(6);
    expect(alarmMetrics).toBe(9);
    // One per function, the API's access log, and the runner builds' log group.
    template.resourceCountIs('AWS::Logs::LogGroup', 9);
    template.resourceCountIs('AWS::Lambda::Function', 7);
    // EventBridge Scheduler bills per invocation: the group and its schedules cost nothing while they do not fire.
    template.resourceCountIs('AWS::Scheduler::ScheduleGroup', 1);
    // Billed per build minute, nothing while no run is queued.
    template.resourceCountIs('AWS::CodeBuild::Project', 1);
    template.resourceCountIs('AWS::Events::Rule', 1);
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(1 minute)' });
    // The hook dispatcher's failed batches, the run queue and its dead letters: all billed per request.
    template.resourceCountIs('AWS::SQS::Queue', 3);
    // Pay-per-request or free types only: nothing with an hourly rate (NAT gateways, endpoints, provisioned capacity).
    expect([...new Set(types)].sort()).toEqual([...DEPLOYMENT_RESOURCE_TYPES, 'AWS::CodeBuild::Project', 'AWS::Scheduler::ScheduleGroup'].sort());
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', { BillingMode: 'PAY_PER_REQUEST' });
  });
});

describe('the Stackyard stack with the real wiring and a custom domain', () => {
  it('tells every API function the custom domain URL, the one users log in with', () => {
    const { template } = synthesize(testApp(), {
      customDomain: { domainName: 'pulumi.example.com', certificateArn: CERTIFICATE_ARN },
    });

    const urls = apiFunctionResources(template).map((fn) => fn.Properties.Environment.Variables[PUBLIC_URL_VARIABLE]);

    expect(urls).toEqual(['https://pulumi.example.com', 'https://pulumi.example.com', 'https://pulumi.example.com', 'https://pulumi.example.com']);
    template.hasOutput('LoginUrl', { Value: 'https://pulumi.example.com' });
    expect(dependencyCycle(template)).toBeUndefined();
  });

  it('passes the cdk-nag AwsSolutions pack with a written reason for every suppression', () => {
    const { stack } = synthesize(testApp(), {
      customDomain: { domainName: 'pulumi.example.com', certificateArn: CERTIFICATE_ARN },
    });

    const report = nagReport(stack);

    expect(report.findings).toEqual([]);
    expect(new Set(report.suppressed.map((s) => s.ruleId.replace(/\[.*$/, '')))).toEqual(
      new Set(['AwsSolutions-S1', 'AwsSolutions-IAM5', 'AwsSolutions-L1', 'AwsSolutions-APIG4', 'AwsSolutions-SQS3', 'AwsSolutions-CB4']),
    );
    for (const s of report.suppressed) expect(s.reason.length).toBeGreaterThan(40);
  });
});
