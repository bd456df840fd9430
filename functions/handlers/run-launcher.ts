import { Logger } from '@aws-lambda-powertools/logger';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { createKmsClient } from '../../shared/adapters/aws/clients.js';
import { CodeBuildBuildStarter, RUNNER_PROJECT_VARIABLE } from '../../shared/adapters/aws/codebuild-build-starter.js';
import { sealRunToken } from '../../shared/adapters/aws/run-token-seal.js';
import { parseRunNotice } from '../../shared/adapters/aws/sqs-run-queue.js';
import { auditTable, deploymentTable, hookTable, identityTable, leaseTable, stackTable, updateTable } from '../../shared/adapters/aws/table-stores.js';
import { serviceDeps } from '../../shared/core/compose/service-deps.js';
import { createRunnerService } from '../../shared/core/deployments/runner-service.js';
import { launchRun, type LauncherDeps } from '../runner/launcher.js';
import { lambdaStorage } from '../lambda-storage.js';
import { kmsParts } from '../storage-parts/kms.js';

const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'stackyard', persistentKeys: { handlerGroup: 'run-launcher' } });

/** How long a run stays the launcher's before its build's first heartbeat: CodeBuild's queue and provisioning. */
const BUILD_START_CLAIM_MS = 15 * 60_000;

let launcher: LauncherDeps | undefined;

/** Built once per cold start: the tables a claim touches, the data keys (settings secrets), KMS and CodeBuild. */
function launcherDeps(): LauncherDeps {
  if (launcher) return launcher;
  const project = process.env[RUNNER_PROJECT_VARIABLE];
  const keyId = process.env.STACKYARD_KMS_KEY_ID;
  if (!project || !keyId) throw new Error(`The run launcher is not configured: set ${RUNNER_PROJECT_VARIABLE} and STACKYARD_KMS_KEY_ID.`);
  const storage = lambdaStorage([stackTable, updateTable, leaseTable, identityTable, auditTable, hookTable, deploymentTable], [kmsParts]);
  const deps = serviceDeps(storage);
  const kms = createKmsClient();
  const builds = new CodeBuildBuildStarter(project);
  launcher = {
    runner: createRunnerService(deps, { claimMs: BUILD_START_CLAIM_MS }),
    deployments: storage.deployments,
    sealToken: (runId, token) => sealRunToken(kms, keyId, runId, token),
    builds,
    log: (message, fields) => logger.info(message, fields),
  };
  return launcher;
}

/**
 * Entry point of the run launcher, fed by the run queue (docs/deployments.md, "On AWS"). A notice whose run still
 * waits behind a live run of its stack, or that failed, is reported as a batch item failure: SQS hands it out again
 * after the visibility timeout, and after five receives keeps it in the dead-letter queue.
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    const notice = parseRunNotice(record.body);
    if (!notice) {
      logger.warn('not a run notice; dropped', { messageId: record.messageId });
      continue;
    }
    try {
      const result = await launchRun(launcherDeps(), notice);
      if (result.kind === 'waiting') failures.push({ itemIdentifier: record.messageId });
    } catch (error) {
      logger.error('could not launch a run', { runId: notice.runId, error: (error as Error).message });
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
}
