import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildLambdaBundle, lambdaEntries } from '../../test/support/lambda-bundles.js';

/** The packages a bundle holds code of, from esbuild's metafile. */
function packagesIn(metafile: Metafile): Set<string> {
  const output = Object.values(metafile.outputs).find((o) => o.entryPoint)!;
  return new Set(
    Object.entries(output.inputs)
      .filter(([, input]) => input.bytesInOutput > 0)
      .flatMap(([path]) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? []),
  );
}

const SDK_CLIENTS = ['@aws-sdk/client-dynamodb', '@aws-sdk/client-s3', '@aws-sdk/client-kms', '@aws-sdk/client-lambda'];
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

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), 'stackyard-lambda-bundles-'));
  for (const name of lambdaEntries()) packages.set(name, packagesIn((await buildLambdaBundle(name, outDir)).metafile));
}, 120_000);

afterAll(() => {
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

describe('what each Lambda bundle carries (esbuild metafile, the infra bundling settings)', () => {
  it('builds one bundle per function under functions/handlers/', () => {
    expect([...packages.keys()].sort()).toEqual(['hook-dispatcher', 'identity', 'secrets', 'stacks', 'updates']);
  });

  it('carries only the SDK clients of the storage its routes or its job use (Lambda: for hook pings, gates and deliveries)', () => {
    const clients = Object.fromEntries([...packages].map(([name, held]) => [name, SDK_CLIENTS.filter((c) => held.has(c))]));

    expect(clients).toEqual({
      'hook-dispatcher': ['@aws-sdk/client-dynamodb', '@aws-sdk/client-kms', '@aws-sdk/client-lambda'],
      identity: ['@aws-sdk/client-dynamodb'],
      secrets: ['@aws-sdk/client-dynamodb', '@aws-sdk/client-kms'],
      stacks: ['@aws-sdk/client-dynamodb', '@aws-sdk/client-s3', '@aws-sdk/client-kms', '@aws-sdk/client-lambda'],
      updates: ['@aws-sdk/client-dynamodb', '@aws-sdk/client-s3', '@aws-sdk/client-kms', '@aws-sdk/client-lambda'],
    });
  });

  it('takes credentials from the environment only: no other link of the default chain is bundled', () => {
    for (const [name, held] of packages) {
      expect([name, UNUSED_IN_LAMBDA.filter((p) => held.has(p))]).toEqual([name, []]);
      expect([name, held.has('@aws-sdk/credential-provider-env')]).toEqual([name, true]);
    }
  });
});
