import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PULUMI_CLI_ROUTE_KEYS, routeShape } from './fixtures/pulumi-cli-routes.js';
import { closedPort, networkAttempts, offlineEnv } from './support.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TOPIC_ARN = 'arn:aws:sns:eu-west-1:123456789012:ops-alerts';
const CERTIFICATE_ARN = 'arn:aws:acm:eu-west-1:123456789012:certificate/0f0f0f0f-1111-2222-3333-444444444444';
const HOOK_FUNCTION_ARN = 'arn:aws:lambda:eu-west-1:123456789012:function:ci-hook';

describe('npx cdk synth of infra/bin/app.ts, offline', () => {
  let workDir: string;
  let result: { stdout: string; stderr: string; ms: number };
  let template: { Resources: Record<string, { Type: string; Properties: Record<string, any> }> };

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'stackyard-synth-'));
    const started = Date.now();
    const { stdout, stderr } = await promisify(execFile)(
      'npx',
      [
        'cdk',
        'synth',
        '--quiet',
        '-o',
        join(workDir, 'cdk.out'),
        '-c',
        'stackName=Stackyard-offline',
        '-c',
        'domainName=pulumi.example.com',
        '-c',
        `certificateArn=${CERTIFICATE_ARN}`,
        '-c',
        `alarmTopicArn=${TOPIC_ARN}`,
        '-c',
        `hookFunctionArns=${HOOK_FUNCTION_ARN}`,
      ],
      {
        cwd: REPO_ROOT,
        // No CDK_DISABLE_CLI_TELEMETRY or --no-notices: cdk.json alone must keep the CLI off the network.
        env: offlineEnv(workDir, `http://127.0.0.1:${await closedPort()}`),
        timeout: 90_000,
      },
    );
    result = { stdout, stderr, ms: Date.now() - started };
    template = JSON.parse(readFileSync(join(workDir, 'cdk.out', 'Stackyard-offline.template.json'), 'utf8'));
  }, 120_000);

  afterAll(() => {
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it('writes the template without opening a connection or resolving a host name', () => {
    expect(networkAttempts(workDir)).toEqual([]);
    expect(result.stderr).not.toMatch(/Docker/i);
    expect(result.ms).toBeLessThan(60_000);
  });

  it('bundles the four API handlers, the hook dispatcher, the run launcher and the schedule fire function into the cloud assembly', () => {
    const functions = Object.values(template.Resources).filter((r) => r.Type === 'AWS::Lambda::Function');

    const bundles = functions.map((fn) =>
      readdirSync(join(workDir, 'cdk.out', `asset.${(fn.Properties.Code.S3Key as string).replace(/\.zip$/, '')}`)).sort(),
    );

    // The identity function serves `$default`, so it alone carries the built web console (docs/console.md).
    const consoleFunction = (fn: (typeof functions)[number]) => fn.Properties.Description === 'Stackyard API: Identity';
    expect(bundles).toEqual(
      functions.map((fn) => (consoleFunction(fn) ? ['console', 'index.mjs', 'index.mjs.map'] : ['index.mjs', 'index.mjs.map'])),
    );
    expect(functions).toHaveLength(7);
  });

  it('applies the context: routes, custom domain URL in the functions, alarm topic on every alarm, hook functions', () => {
    const resources = Object.values(template.Resources);
    const routeKeys = new Set(
      resources.filter((r) => r.Type === 'AWS::ApiGatewayV2::Route').map((r) => routeShape(r.Properties.RouteKey)),
    );
    const alarms = resources.filter((r) => r.Type === 'AWS::CloudWatch::Alarm');

    expect(PULUMI_CLI_ROUTE_KEYS.filter((key) => !routeKeys.has(routeShape(key)))).toEqual([]);
    expect(routeKeys.has('$default')).toBe(true);
    const functions = resources.filter((r) => r.Type === 'AWS::Lambda::Function');
    const apiFunctions = functions.filter((fn) => String(fn.Properties.Description).startsWith('Stackyard API: '));
    expect(apiFunctions).toHaveLength(4);
    for (const fn of apiFunctions) {
      expect(fn.Properties.Environment.Variables.STACKYARD_PUBLIC_URL).toBe('https://pulumi.example.com');
    }
    // Every function that may deliver hooks knows which functions it may invoke; the run launcher and the schedule
    // fire function deliver none.
    const hookSenders = functions.filter((fn) => !['Stackyard run launcher', 'Stackyard schedule fire function'].includes(fn.Properties.Description));
    expect(hookSenders).toHaveLength(5);
    for (const fn of hookSenders) expect(fn.Properties.Environment.Variables.STACKYARD_HOOK_FUNCTION_ARNS).toBe(HOOK_FUNCTION_ARN);
    const invokeResources = resources
      .filter((r) => r.Type === 'AWS::IAM::Policy')
      .flatMap((p) => p.Properties.PolicyDocument.Statement as Array<{ Action: string | string[]; Resource: unknown }>)
      .filter((statement) => [statement.Action].flat().includes('lambda:InvokeFunction'))
      .map((statement) => [statement.Resource].flat().sort());
    // The hook functions (API role, dispatcher role), and the schedule fire function (EventBridge Scheduler's role).
    expect(invokeResources.filter((resource) => typeof resource[0] === 'string')).toEqual([
      [HOOK_FUNCTION_ARN, `${HOOK_FUNCTION_ARN}:*`],
      [HOOK_FUNCTION_ARN, `${HOOK_FUNCTION_ARN}:*`],
    ]);
    expect(invokeResources.filter((resource) => typeof resource[0] !== 'string')).toEqual([[{ 'Fn::GetAtt': [expect.stringMatching(/^SchedulesFire/), 'Arn'] }]]);
    expect(alarms).toHaveLength(6);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual([TOPIC_ARN]);
      expect(alarm.Properties.OKActions).toEqual([TOPIC_ARN]);
    }
    expect(resources.some((r) => r.Type === 'AWS::CDK::Metadata')).toBe(false);
  });
});
