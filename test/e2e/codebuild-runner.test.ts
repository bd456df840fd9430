/**
 * What CodeBuild would run is what this test runs: the buildspec the CDK app synthesizes for the runner project is
 * taken from the template, its phases' commands become one bash script, and the script runs on this machine against a
 * local serve with the environment a runner build has — the project's variables, the launcher's overrides (the run's
 * id and its token sealed under KMS, here our KMS stand-in), CODEBUILD_SRC_DIR holding the bundle the asset ships.
 * The launcher's part is the real one too (`launchRun`: claim, mint, seal, start), with the build start captured.
 * Left out, because they are CodeBuild's: `runtime-versions` (this machine's Node runs it) and the install of the
 * CLI's external packages, which the buildspec skips when the source has node_modules (linked here, offline).
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KMSClient } from '@aws-sdk/client-kms';
import { Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchRun, RUN_ID_VARIABLE, SEALED_TOKEN_VARIABLE } from '../../functions/runner/launcher.js';
import { CodeBuildRunner } from '../../infra/lib/constructs/codebuild-runner.js';
import { runnerWiring } from '../../infra/lib/wiring.js';
import { testApp, TEST_ENV } from '../../infra/test/support.js';
import { createLocalStorage } from '../../shared/adapters/local/index.js';
import { sealRunToken } from '../../shared/adapters/aws/run-token-seal.js';
import { serviceDeps } from '../../shared/core/compose/service-deps.js';
import { createRunnerService } from '../../shared/core/deployments/runner-service.js';
import type { Storage } from '../../shared/ports/index.js';
import { startServe, type ServeProcess } from '../api/serve-process.js';
import { REPO, removeSandboxes } from '../cli/cli-harness.js';
import { GitHttpServer } from '../support/git-http-server.js';
import { startKmsServer, type KmsStandIn } from '../support/kms-server.js';
import { programFiles } from './run-program.js';

const STACK = '/api/stacks/admin/runapp/dev';
const PROGRAM = `'use strict';
const pulumi = require('@pulumi/pulumi');
const { greeting } = require('greeting');
new pulumi.CustomResource('testprov:index:Thing', 'built', { value: greeting() });
`;
const AWS = { AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test' };

interface BuildSpec {
  phases: Record<string, { commands?: string[] }>;
  env?: { shell?: string };
}

/** The runner project's buildspec, as CloudFormation would hand it to CodeBuild. */
function synthesizedBuildSpec(): BuildSpec {
  const stack = new Stack(testApp(), 'Runner', { env: TEST_ENV });
  new CodeBuildRunner(stack, 'Runner', {
    wiring: runnerWiring(),
    queue: new sqs.Queue(stack, 'Queue', { visibilityTimeout: Duration.minutes(6) }),
    table: new dynamodb.TableV2(stack, 'Table', { partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING } }),
    indexNames: [],
    key: new kms.Key(stack, 'Key'),
    bucketName: 'state-bucket',
    encryptionContextKeys: ['stackyard:stack'],
    serviceUrl: 'https://api.example.com',
  });
  const projects = Template.fromStack(stack).findResources('AWS::CodeBuild::Project');
  const [project] = Object.values(projects);
  return JSON.parse(project!.Properties.Source.BuildSpec as string) as BuildSpec;
}

/** The phases' commands in CodeBuild's order, as one script that stops at the first failing command. */
function buildScript(spec: BuildSpec): string {
  const order = ['install', 'pre_build', 'build', 'post_build'];
  const commands = order.flatMap((phase) => spec.phases[phase]?.commands ?? []);
  return ['set -euo pipefail', ...commands].join('\n');
}

/** Runs `script` with `shell`, collecting its output; stopped after 3 minutes. */
function runScript(shell: string, script: string, env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(shell, ['-c', script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

describe('the synthesized runner buildspec, run as a script against a local serve', () => {
  let serve: ServeProcess;
  let git: GitHttpServer;
  let kmsServer: KmsStandIn;
  let storage: Storage;
  let world: string;
  let srcDir: string;
  const dataDir = mkdtempSync(join(tmpdir(), 'stackyard-codebuild-serve-'));

  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${serve.url}${path}`, {
      method,
      headers: { authorization: `token ${serve.adminToken}`, 'content-type': 'application/json', accept: 'application/vnd.pulumi+8' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };

  beforeAll(async () => {
    git = new GitHttpServer();
    await git.start();
    const repoUrl = git.repository('app', { main: programFiles(PROGRAM) });
    world = mkdtempSync(join(tmpdir(), 'stackyard-world-'));
    [serve, kmsServer] = await Promise.all([startServe({ storage: 'local', dataDir }), startKmsServer()]);
    storage = await createLocalStorage({ dataDir });
    await api('POST', '/api/stacks/admin/runapp', { stackName: 'dev' });
    await api('POST', `${STACK}/deployments/settings`, {
      sourceContext: { git: { repoUrl, branch: 'main' } },
      operationContext: { environmentVariables: { NODE_PATH: join(REPO, 'node_modules'), TESTPROV_WORLD: world, TESTPROV_LOG: join(world, 'provider.log') } },
    });
    // What the project's source asset holds (dist/cli without source maps), plus node_modules linked for offline.
    srcDir = mkdtempSync(join(tmpdir(), 'stackyard-codebuild-src-'));
    cpSync(join(REPO, 'dist/cli'), srcDir, { recursive: true, filter: (path) => !path.endsWith('.map') });
    symlinkSync(join(REPO, 'node_modules'), join(srcDir, 'node_modules'));
  }, 120_000);

  afterAll(async () => {
    await storage?.close();
    await Promise.all([serve?.stop(), kmsServer?.stop(), git?.stop()]);
    for (const dir of [world, srcDir, dataDir]) if (dir) rmSync(dir, { recursive: true, force: true });
    removeSandboxes();
  });

  it('runs the queued update green: the stack holds the program\'s resource and the run\'s log came through the API', async () => {
    // Arrange: a queued run, and the launcher handing it to a (captured) build.
    const { id } = (await api('POST', `${STACK}/deployments`, { operation: 'update' })) as { id: string };
    const kmsClient = new KMSClient({ endpoint: kmsServer.endpoint, region: AWS.AWS_REGION, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
    const overrides: Record<string, string>[] = [];
    const launched = await launchRun(
      {
        runner: createRunnerService(serviceDeps(storage), { claimMs: 15 * 60_000 }),
        deployments: storage.deployments,
        sealToken: (runId, token) => sealRunToken(kmsClient, kmsServer.keyId, runId, token),
        builds: { start: async (environment) => (overrides.push(environment), 'stackyard-runner:build-1') },
        log: () => {},
      },
      { runId: id, stackId: 'unused', version: 1 },
    );
    kmsClient.destroy();
    expect(launched).toEqual({ kind: 'started', runId: id, buildId: 'stackyard-runner:build-1' });
    expect(Object.keys(overrides[0]!).sort()).toEqual([RUN_ID_VARIABLE, SEALED_TOKEN_VARIABLE]);
    const spec = synthesizedBuildSpec();

    // Act: the buildspec's commands with a runner build's environment (no administrator token anywhere in it).
    // Not spawnSync: the loopback git server lives in this process and must answer the clone.
    const result = await runScript(spec.env?.shell ?? 'bash', buildScript(spec), {
        PATH: process.env.PATH,
        HOME: mkdtempSync(join(tmpdir(), 'stackyard-codebuild-home-')),
        ...AWS,
        AWS_ENDPOINT_URL_KMS: kmsServer.endpoint,
        CODEBUILD_SRC_DIR: srcDir,
        CODEBUILD_BUILD_ID: 'stackyard-runner:build-1',
        STACKYARD_RUNNER_SERVICE_URL: serve.url,
        ...overrides[0],
    });

    // Assert
    const run = (await api('GET', `${STACK}/deployments/${id}`)) as { status: string; updates: unknown[] };
    const log = ((await api('GET', `${STACK}/deployments/${id}/logs`)) as { lines: { line: string }[] }).lines.map((l) => l.line);
    expect(result.status, `${result.stdout}\n${result.stderr}\n${JSON.stringify(run)}\n${log.join('\n')}`).toBe(0);
    expect(run.status).toBe('succeeded');
    expect(run.updates.length).toBeGreaterThan(0);
    const exported = (await api('GET', `${STACK}/export`)) as { deployment: { resources?: { urn: string; outputs?: Record<string, unknown> }[] } };
    expect(exported.deployment.resources?.find((r) => r.urn.endsWith('::built'))?.outputs?.value).toBe('hello from the repository');
    expect(log[0]).toBe('The run was handed to CodeBuild build stackyard-runner:build-1.');
    expect(log).toContain('$ npm ci');
    expect(log).toContain('The update succeeded.');
  }, 240_000);
});
