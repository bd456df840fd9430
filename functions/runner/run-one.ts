/**
 * `stackyard runner --run <id>`: runs one deployment run that a launcher claimed for it, holding nothing but the run's
 * token (what the CodeBuild buildspec runs, docs/deployments.md "On AWS"). The token comes sealed under the
 * deployment's KMS key (STACKYARD_RUN_TOKEN_SEALED); the run's source, environment, log, heartbeat and result go
 * through the service's runner routes (STACKYARD_RUNNER_SERVICE_URL), with the same runner module serve's workers run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KMSClient } from '@aws-sdk/client-kms';
import { openRunToken } from '../../shared/adapters/aws/run-token-seal.js';
import type { RunOutcome } from '../../shared/core/deployments/runner-service.js';
import { InvalidInputError } from '../../shared/core/errors.js';
import { executeRun } from './execute-run.js';
import { remoteRunner } from './remote-runner.js';
import { stepBaseEnv } from './worker.js';

/** What one run needs from its process. */
export interface RunOneOptions {
  runId: string;
  /** The bundled CLI's entry the run's steps start. */
  cli: string;
  env: NodeJS.ProcessEnv;
}

/** Heartbeats every 15 s: a quarter of the claim (60 s) the service's runner routes keep. */
const HEARTBEAT_MS = 15_000;

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name]?.trim();
  if (!value) throw new InvalidInputError(`${name} is not set: the run launcher sets it on the build (docs/deployments.md, "On AWS").`);
  return value;
}

/** Runs the run to its end; `undefined` when it changed hands (its token was refused) before it ended. */
export async function runOne(options: RunOneOptions, shutdown: AbortSignal): Promise<RunOutcome | undefined> {
  const serviceUrl = required(options.env, 'STACKYARD_RUNNER_SERVICE_URL');
  const kms = new KMSClient({});
  let token: string;
  try {
    token = await openRunToken(kms, options.runId, required(options.env, 'STACKYARD_RUN_TOKEN_SEALED'));
  } finally {
    kms.destroy();
  }
  const remote = remoteRunner(serviceUrl, options.runId, token);
  const claimed = await remote.claimed();
  const workRoot = mkdtempSync(join(tmpdir(), 'stackyard-run-'));
  try {
    return await executeRun(
      {
        runner: remote.service,
        name: options.env.CODEBUILD_BUILD_ID ?? `runner:${process.pid}`,
        serviceUrl,
        cli: options.cli,
        workRoot,
        baseEnv: stepBaseEnv(options.env),
        heartbeatMs: HEARTBEAT_MS,
      },
      claimed,
      shutdown,
    );
  } finally {
    rmSync(workRoot, { recursive: true, force: true });
  }
}
