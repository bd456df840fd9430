import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildLambdaBundle, lambdaEntries } from '../../test/support/lambda-bundles.js';

/** The input files a bundle holds at least `minBytes` of, from esbuild's metafile. */
function inputsOf(metafile: Metafile, minBytes = 1): string[] {
  const output = Object.values(metafile.outputs).find((o) => o.entryPoint)!;
  return Object.entries(output.inputs)
    .filter(([, input]) => input.bytesInOutput >= minBytes)
    .map(([path]) => path);
}

/** The packages a bundle holds code of. */
function packagesIn(inputs: readonly string[]): Set<string> {
  return new Set(inputs.flatMap((path) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? []));
}

/**
 * The DynamoDB store adapters a bundle holds, by file name (`dynamodb-<store>-store.ts`); given only the inputs it holds
 * 1 KB or more of: the stack store's writes use a few lines of the hook store (the outbox items), not its class.
 */
function tableStoresIn(inputs: readonly string[]): string[] {
  return inputs.flatMap((path) => /shared\/adapters\/aws\/dynamodb-([a-z-]+)-store\.ts$/.exec(path)?.[1] ?? []).sort();
}

const SDK_CLIENTS = [
  '@aws-sdk/client-dynamodb',
  '@aws-sdk/client-s3',
  '@aws-sdk/client-kms',
  '@aws-sdk/client-lambda',
  '@aws-sdk/client-sts',
  '@aws-sdk/client-secrets-manager',
  '@aws-sdk/client-ssm',
  '@aws-sdk/client-sqs',
  '@aws-sdk/client-codebuild',
  '@aws-sdk/client-scheduler',
];
const UNUSED_IN_LAMBDA = [
  '@aws-sdk/credential-provider-node',
  '@aws-sdk/credential-provider-ini',
  '@aws-sdk/credential-provider-sso',
  '@aws-sdk/credential-provider-web-identity',
  '@aws-sdk/nested-clients',
  '@smithy/credential-provider-imds',
];

let outDir: string;
const packages = new Map<string, Set<string>>();
const tableStores = new Map<string, string[]>();
const schemaModules = new Map<string, string[]>();
const allInputs = new Map<string, string[]>();
/** Per bundle, the files that import `semver` (which LAMBDA_ALIASES narrows to `functions/lambda-semver.cjs`). */
const semverImporters = new Map<string, string[]>();

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), 'stackyard-lambda-bundles-'));
  for (const name of lambdaEntries()) {
    const { metafile } = await buildLambdaBundle(name, outDir);
    packages.set(name, packagesIn(inputsOf(metafile)));
    tableStores.set(name, tableStoresIn(inputsOf(metafile, 1024)));
    schemaModules.set(name, inputsOf(metafile).flatMap((path) => /functions\/http\/schemas-(\w+)\.ts$/.exec(path)?.[1] ?? []).sort());
    allInputs.set(name, inputsOf(metafile));
    semverImporters.set(
      name,
      Object.entries(metafile.inputs)
        .filter(([, input]) => input.imports.some((i) => i.original === 'semver'))
        .map(([path]) => path),
    );
  }
}, 120_000);

afterAll(() => {
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

describe('what each Lambda bundle carries (esbuild metafile, the infra bundling settings)', () => {
  it('builds one bundle per function under functions/handlers/', () => {
    expect([...packages.keys()].sort()).toEqual(['hook-dispatcher', 'identity', 'run-launcher', 'schedule-fire', 'secrets', 'stacks', 'updates']);
  });

  it('carries only the SDK clients of the storage its routes or its job use (Lambda: for hook pings and redeliveries, gates, deliveries)', () => {
    const clients = Object.fromEntries([...packages].map(([name, held]) => [name, SDK_CLIENTS.filter((c) => held.has(c))]));

    expect(clients).toEqual({
      'hook-dispatcher': ['@aws-sdk/client-dynamodb', '@aws-sdk/client-kms', '@aws-sdk/client-lambda'],
      identity: ['@aws-sdk/client-dynamodb'],
      // Claims a run (the table, the settings' data keys), seals its token (KMS) and starts its build.
      'run-launcher': ['@aws-sdk/client-dynamodb', '@aws-sdk/client-kms', '@aws-sdk/client-codebuild'],
      // Fires a due schedule: its run's settings (data keys), the run queue, and the removal of an orphaned trigger.
      'schedule-fire': ['@aws-sdk/client-dynamodb', '@aws-sdk/client-kms', '@aws-sdk/client-sqs', '@aws-sdk/client-scheduler'],
      // Environment definitions are objects in the bucket; opening one runs the providers (STS, Secrets Manager, SSM).
      secrets: ['@aws-sdk/client-dynamodb', '@aws-sdk/client-s3', '@aws-sdk/client-kms', '@aws-sdk/client-sts', '@aws-sdk/client-secrets-manager', '@aws-sdk/client-ssm'],
      stacks: ['@aws-sdk/client-dynamodb', '@aws-sdk/client-s3', '@aws-sdk/client-kms'],
      // Queueing a deployment run announces it on the run queue (SQS); a stack schedule has an EventBridge Scheduler trigger.
      updates: ['@aws-sdk/client-dynamodb', '@aws-sdk/client-s3', '@aws-sdk/client-kms', '@aws-sdk/client-lambda', '@aws-sdk/client-sqs', '@aws-sdk/client-scheduler'],
    });
  });

  it('carries only the table stores its routes, authentication and the audit log use', () => {
    const sessions = ['audit', 'console-session', 'identity', 'stack'];
    expect(Object.fromEntries(tableStores)).toEqual({
      'hook-dispatcher': ['hook'],
      identity: sessions,
      'run-launcher': ['audit', 'deployment', 'hook', 'identity', 'lease', 'stack', 'update'],
      'schedule-fire': ['audit', 'deployment', 'hook', 'schedule', 'stack'],
      secrets: ['audit', 'console-session', 'environment', 'identity', 'stack'],
      // Policy packs and groups are served by the stacks function; updates reads a stack's required packs.
      stacks: ['audit', 'console-session', 'identity', 'lease', 'policy', 'stack', 'update'],
      // Deployment settings, runs, drift runs (the drift store is under 1 KB) and schedules, and approvals (whose rules
      // `start` applies), are served by the updates function.
      // The runner routes (a CodeBuild build's calls) read and record drift runs of detect-drift runs.
      updates: ['approval', 'audit', 'console-session', 'deployment', 'drift', 'hook', 'identity', 'lease', 'policy', 'schedule', 'stack', 'update'],
    });
  });

  it("carries only its own route families' request schemas (identity also the others, which the OpenAPI document loads)", () => {
    expect(Object.fromEntries(schemaModules)).toEqual({
      'hook-dispatcher': [],
      identity: ['approvals', 'deployments', 'environments', 'identity', 'policy', 'secrets', 'stacks', 'updates'],
      'run-launcher': [],
      'schedule-fire': [],
      secrets: ['environments', 'secrets'],
      // The access routes (members, teams, stack grants) are split between identity and stacks.
      stacks: ['identity', 'policy', 'stacks'],
      updates: ['approvals', 'deployments', 'updates'],
    });
  });

  it("validates with zod/mini: no bundle carries classic zod's methods and JSON Schema conversion for every schema", () => {
    for (const [name, inputs] of allInputs) {
      expect([name, inputs.filter((path) => path.includes('node_modules/zod/v4/classic/'))]).toEqual([name, []]);
    }
  });

  it("gets from `semver` every function its importers call: the X-Ray SDK's v2 patcher, which calls `gte` only", () => {
    const patcher = 'node_modules/aws-xray-sdk-core/dist/lib/patchers/aws_p.js';
    for (const [name, importers] of semverImporters) {
      // A new importer (after an upgrade) may call more of semver: it fails here until lambda-semver.cjs gives that too.
      // A function without the X-Ray SDK (the run launcher, which traces nothing) has no importer at all.
      const traced = packages.get(name)!.has('aws-xray-sdk-core');
      expect([name, importers]).toEqual([name, traced ? [patcher] : []]);
      const semverFiles = allInputs.get(name)!.filter((path) => path.startsWith('node_modules/semver/'));
      expect([name, semverFiles.filter((path) => /\/(ranges|classes\/(range|comparator))/.test(path))]).toEqual([name, []]);
    }
    const source = readFileSync(patcher, 'utf8');
    // The patcher binds the package to one name and only ever calls members of it.
    expect(source.match(/require\('semver'\)/g)).toEqual(["require('semver')"]);
    expect(source).toContain("var semver = require('semver');");
    expect([...new Set([...source.matchAll(/\bsemver\.(\w+)/g)].map((m) => m[1]))]).toEqual(['gte']);

    const narrowed = createRequire(import.meta.url)('../../functions/lambda-semver.cjs') as { gte: (a: string, b: string) => boolean };
    expect([narrowed.gte('2.7.16', '2.7.15'), narrowed.gte('2.7.15', '2.7.15'), narrowed.gte('2.7.9', '2.7.15')]).toEqual([true, true, false]);
  });

  it('takes credentials from the environment only: no other link of the default chain is bundled', () => {
    for (const [name, held] of packages) {
      expect([name, UNUSED_IN_LAMBDA.filter((p) => held.has(p))]).toEqual([name, []]);
      expect([name, held.has('@aws-sdk/credential-provider-env')]).toEqual([name, true]);
    }
  });
});
