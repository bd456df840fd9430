import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapAdministrator } from '../../cli/commands/admin-bootstrap.js';
import { PUBLIC_URL_VARIABLE } from '../../infra/lib/stacks/stackyard-stack.js';
import { createAwsStorage } from '../../shared/adapters/aws/index.js';
import type { HandlerGroup } from '../../functions/http/router.js';
import { API_ROUTES } from '../../functions/http/routes/index.js';
import { applyEnv, startAwsStandIns, type AwsStandIns } from '../support/aws-stand-ins.js';
import { buildLambdaBundle } from '../support/lambda-bundles.js';
import { FORCE_FUNCTION_HEADER, startLambdaGateway, type LambdaGateway } from '../support/lambda-gateway.js';
import { failed, PulumiWire } from './pulumi-wire.js';
import { defineWireScenarios } from './wire-scenarios.js';

const GROUPS: readonly HandlerGroup[] = ['identity', 'stacks', 'updates', 'secrets'];

let standIns: AwsStandIns;
let gateway: LambdaGateway;
let wire: PulumiWire;
let adminToken: string;
let bundleDir: string;

beforeAll(async () => {
  bundleDir = mkdtempSync(join(tmpdir(), 'stackyard-function-bundles-'));
  const [started, files] = await Promise.all([
    startAwsStandIns(),
    Promise.all(GROUPS.map(async (group) => [group, (await buildLambdaBundle(group, bundleDir)).file] as const)),
  ]);
  standIns = started;
  const restoreEnv = applyEnv(standIns.env);
  const storage = createAwsStorage({ table: standIns.table, bucket: standIns.bucket, kmsKeyId: standIns.kmsKeyId });
  try {
    ({ token: adminToken } = await bootstrapAdministrator(storage.identity, 'admin'));
  } finally {
    await storage.close();
    restoreEnv();
  }
  // What a function has in Lambda: the storage variables, its region and role credentials, the URL users log in with.
  gateway = await startLambdaGateway(Object.fromEntries(files) as Record<HandlerGroup, string>, (url) => ({
    PATH: process.env.PATH ?? '',
    ...standIns.env,
    [PUBLIC_URL_VARIABLE]: url,
  }));
  wire = new PulumiWire(gateway.url);
}, 120_000);

afterAll(async () => {
  wire?.close();
  await gateway?.stop();
  await standIns?.stop();
  if (bundleDir) rmSync(bundleDir, { recursive: true, force: true });
});

describe('Pulumi CLI call sequences against the four Lambda bundles, each in its own process, routed as API Gateway routes them', () => {
  defineWireScenarios(() => ({ wire, adminToken, url: gateway.url }));

  it('ran every function, and a route sent to the wrong function is answered 404 saying so', async () => {
    expect(Object.values(gateway.invocations).every((count) => count > 0)).toBe(true);

    const auth = { token: adminToken };
    const misrouted = await wire.call('GET', '/api/user', { auth, headers: { [FORCE_FUNCTION_HEADER]: 'updates' } });

    expect(failed(misrouted, 404)).toMatch(/GET \/api\/user is not a route of the updates function, yet API Gateway sent it there/);
    expect(failed(await wire.call('GET', '/api/nothing/here', { auth }), 404)).toMatch(/not served by Stackyard/);
  });

  it('answers every route of the table on its own function without reaching a service, store or client it was built without', async () => {
    // Each function builds only the services, table stores and clients its routes use (composition.ts); a route that
    // reached one it was built without would answer 500. Every route is called once, on a real stack where it takes
    // one, with an empty body: most stop at validation or a missing record, after authentication and the lookups.
    const auth = { token: adminToken };
    expect((await wire.call('POST', '/api/stacks/admin/sweep', { auth, body: { stackName: 'swept' } })).status).toBe(200);
    const sample: Record<string, string> = { orgName: 'admin', projectName: 'sweep', stackName: 'swept', version: '1' };
    const internalErrors: string[] = [];

    for (const route of API_ROUTES) {
      const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => sample[name] ?? 'missing');
      const response = await wire.call(route.method, path, { auth, body: {}, gzip: false });
      if (response.status >= 500) internalErrors.push(`${route.method} ${route.path} (${route.group}): ${response.text.slice(0, 200)}`);
    }

    expect(internalErrors).toEqual([]);
  });
});
