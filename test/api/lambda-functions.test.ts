import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapAdministrator } from '../../cli/commands/admin-bootstrap.js';
import { PUBLIC_URL_VARIABLE } from '../../infra/lib/stacks/stackyard-stack.js';
import { createAwsStorage } from '../../shared/adapters/aws/index.js';
import type { HandlerGroup } from '../../functions/http/router.js';
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
});
