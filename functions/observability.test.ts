import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApiGatewayHandler } from './handlers/api-gateway.js';
import { jsonResponse } from './http/respond.js';
import { API_METRICS, apiMetricsMiddleware, createApiMetrics, createTracer, METRICS_NAMESPACE, tracingMiddleware } from './observability.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));

function event(): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: '/api/user',
    rawQueryString: '',
    headers: {},
    requestContext: {
      accountId: '1',
      apiId: 'a',
      domainName: 'api.example.com',
      domainPrefix: 'api',
      http: { method: 'GET', path: '/api/user', protocol: 'HTTP/1.1', sourceIp: '1.2.3.4', userAgent: 'pulumi-cli/1' },
      requestId: `req-${Math.random()}`,
      routeKey: '$default',
      stage: '$default',
      time: '01/Jan/2026:00:00:00 +0000',
      timeEpoch: 0,
    },
    isBase64Encoded: false,
  };
}

const context = {
  functionName: 'Stackyard-Identity',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:Stackyard-Identity',
  memoryLimitInMB: '512',
  awsRequestId: 'aws-req',
  getRemainingTimeInMillis: () => 28_000,
} as unknown as Context;

/** Every line printed on stdout and stderr while `act` runs (Lambda ships both to CloudWatch Logs). */
async function printed(act: () => Promise<unknown>): Promise<string[]> {
  const output: string[] = [];
  const capture = (chunk: string | Uint8Array) => (output.push(String(chunk)), true);
  const spies = [vi.spyOn(process.stdout, 'write').mockImplementation(capture), vi.spyOn(process.stderr, 'write').mockImplementation(capture)];
  try {
    await act();
  } finally {
    spies.forEach((spy) => spy.mockRestore());
  }
  return output.join('').split('\n').filter(Boolean);
}

afterEach(() => vi.unstubAllEnvs());

describe('API function metrics (Powertools Metrics)', () => {
  it('publishes ColdStart once, a 503 as Unavailable and a 500 as InternalErrors, and nothing for other answers', async () => {
    // What Lambda sets in an on-demand environment; Powertools counts a cold start only there.
    vi.stubEnv('AWS_LAMBDA_INITIALIZATION_TYPE', 'on-demand');
    const statuses = [503, 200, 404, 500];
    const metrics = createApiMetrics('identity');
    const handler = createApiGatewayHandler(
      new Logger({ serviceName: 'stackyard', logLevel: 'SILENT' }),
      () => async () => jsonResponse(statuses.shift()!, {}),
      [apiMetricsMiddleware(metrics)],
    );

    const lines = await printed(async () => {
      for (let i = 0; i < 4; i += 1) await handler(event(), context);
    });

    const emf = lines.map((line) => JSON.parse(line) as Record<string, any>);
    expect(emf.every((line) => '_aws' in line)).toBe(true);
    const byMetric = (name: string) => emf.filter((line) => line._aws.CloudWatchMetrics[0].Metrics[0].Name === name);
    expect(byMetric('ColdStart')).toHaveLength(1);
    expect(byMetric('ColdStart')[0]).toMatchObject({ function_name: 'Stackyard-Identity', ColdStart: 1 });
    for (const name of [API_METRICS.unavailable, API_METRICS.internalErrors]) {
      expect(byMetric(name)).toHaveLength(1);
      expect(byMetric(name)[0]).toMatchObject({
        _aws: { CloudWatchMetrics: [{ Namespace: METRICS_NAMESPACE, Dimensions: [['service', 'handlerGroup']], Metrics: [{ Name: name, Unit: 'Count' }] }] },
        service: 'stackyard',
        handlerGroup: 'identity',
        [name]: 1,
      });
    }
    expect(emf).toHaveLength(3);
  });

  it('prints nothing with POWERTOOLS_METRICS_DISABLED=true', async () => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'true');
    const handler = createApiGatewayHandler(
      new Logger({ serviceName: 'stackyard', logLevel: 'SILENT' }),
      () => async () => jsonResponse(503, {}),
      [apiMetricsMiddleware(createApiMetrics('updates'))],
    );

    expect(await printed(() => handler(event(), context))).toEqual([]);
  });
});

describe('tracing (Powertools Tracer)', () => {
  it('is off outside Lambda, and the traced handler still answers', async () => {
    const tracer = createTracer();
    const handler = createApiGatewayHandler(
      new Logger({ serviceName: 'stackyard', logLevel: 'SILENT' }),
      () => async () => jsonResponse(200, { ok: true }),
      [tracingMiddleware(tracer)],
    );

    const result = await handler(event(), context);

    expect(tracer.isTracingEnabled()).toBe(false);
    expect(result).toMatchObject({ statusCode: 200, body: '{"ok":true}' });
  });

  it('is on in a Lambda execution environment', () => {
    vi.stubEnv('AWS_EXECUTION_ENV', 'AWS_Lambda_nodejs22.x');
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', 'Stackyard-Identity');

    expect(createTracer().isTracingEnabled()).toBe(true);
  });
});

describe('serve', () => {
  // serve runs from the bundled CLI: neither the X-Ray SDK (an async hook on every promise) nor Metrics may be in it.
  it('bundles neither the X-Ray SDK nor Powertools Metrics (needs npm run build)', () => {
    const dist = join(REPO, 'dist/cli');
    const files = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.mjs'));
    expect(files.length).toBeGreaterThan(1);
    const offending = files.filter((name) => /AWSXRay|cls-hooked|_aws"?:\s*\{\s*"?Timestamp|publishStoredMetrics/.test(readFileSync(join(dist, name), 'utf8')));
    expect(offending).toEqual([]);
  });
});
