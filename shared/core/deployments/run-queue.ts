import { randomUUID } from 'node:crypto';
import { ConflictError, InvalidInputError } from '../errors.js';
import { formatStackRef } from '../names.js';
import type { DeploymentOperation, DeploymentRun } from '../../ports/deployment-store.js';
import type { StackRecord } from '../../ports/stack-store.js';
import type { ServiceDeps } from '../kernel/deps.js';
import { gitSource, mergeSettings, sealSettings, validateSettings } from './settings.js';
import { archiveSource, requireUploadedArchive } from './source-archives.js';

/** Pulumi's operations, in `apitype.ParsePulumiOperation`'s words. */
export const DEPLOYMENT_OPERATIONS: readonly DeploymentOperation[] = ['update', 'preview', 'destroy', 'refresh', 'detect-drift', 'remediate-drift'];

/** Pulumi's `CreateDeploymentRequest` (`inheritSettings` defaults to true, as on Pulumi Cloud's current routes). */
export interface CreateRunRequest {
  operation: string;
  inheritSettings?: boolean;
  executorContext?: Record<string, unknown>;
  sourceContext?: Record<string, unknown>;
  operationContext?: Record<string, unknown>;
}

const VERSION_RETRIES = 8;

/** The operation a request names, or an `InvalidInputError` listing Pulumi's. */
export function deploymentOperation(request: Pick<CreateRunRequest, 'operation'>): DeploymentOperation {
  const operation = DEPLOYMENT_OPERATIONS.find((op) => op === request.operation);
  if (!operation) {
    throw new InvalidInputError(`Unknown operation '${String(request.operation).slice(0, 40)}': expected one of ${DEPLOYMENT_OPERATIONS.join(', ')}.`);
  }
  return operation;
}

/**
 * Queues a run of `stack` (the caller has checked who may): the stack's settings merged with the request's own,
 * checked, secrets sealed, with the next version of the stack's runs. Used by `createRun`, the scheduler and push
 * webhooks (whose `origin` names the pull request a preview is for).
 */
export async function queueRun(
  deps: ServiceDeps,
  stack: StackRecord,
  request: CreateRunRequest,
  requestedBy: string,
  initiator: string,
  origin: Pick<DeploymentRun, 'pullRequest'> = {},
): Promise<DeploymentRun> {
  const operation = deploymentOperation(request);
  const store = deps.storage.deployments;
  const inherited = request.inheritSettings === false ? {} : { ...((await store.getSettings(stack.id))?.settings ?? {}) };
  // An uploaded archive is the run's whole source: the stack's git source is not merged into it.
  if (request.sourceContext?.archive !== undefined) delete inherited.sourceContext;
  const own: Record<string, unknown> = {};
  for (const key of ['executorContext', 'sourceContext', 'operationContext'] as const) if (request[key] !== undefined) own[key] = request[key];
  const merged = mergeSettings(inherited, own);
  // A run needs no push webhook secret: it stays with the stack's settings.
  delete merged.pushWebhook;
  validateSettings(merged);
  const archive = archiveSource(merged);
  if (!archive && !gitSource(merged)) {
    throw new InvalidInputError(
      `The stack ${formatStackRef(stack)} has no source to deploy: set sourceContext.git.repoUrl with ` +
        `'stackyard deployment settings edit --git-url <repository> --branch <branch>' (or POST …/deployments/settings), or pass a source with ` +
        `the run ('stackyard deployment run <operation> --source <dir>' uploads a program folder).`,
    );
  }
  if (archive) await requireUploadedArchive(deps, stack, archive);
  const settings = await sealSettings(deps.keys, stack, merged);
  for (let attempt = 0; ; attempt++) {
    const latest = (await store.listRuns(stack.id, 1))[0];
    const now = deps.now();
    const run: DeploymentRun = {
      id: randomUUID(),
      stackId: stack.id,
      org: stack.org,
      project: stack.project,
      stack: stack.stack,
      version: (latest?.version ?? 0) + 1,
      operation,
      status: 'not-started',
      requestedBy,
      initiator,
      settings,
      created: now,
      modified: now,
      revision: 1,
      updates: [],
      ...origin,
    };
    try {
      await store.createRun(run);
    } catch (error) {
      if (!(error instanceof ConflictError) || attempt >= VERSION_RETRIES) throw error;
      continue;
    }
    await announceRun(deps, run);
    return run;
  }
}

/**
 * Announces a stored run on the run queue (AWS: SQS). A run the queue refused would wait for a runner forever, so it
 * is failed at once, saying why, and the caller gets the queue's error (503: queue it again).
 */
async function announceRun(deps: ServiceDeps, run: DeploymentRun): Promise<void> {
  const queue = deps.options.runQueue;
  if (!queue) return;
  try {
    await queue.announce({ runId: run.id, stackId: run.stackId, version: run.version });
  } catch (error) {
    const failure = `not queued: the run queue refused it (${(error as Error).message.slice(0, 300)})`;
    await deps.storage.deployments.updateRun({ ...run, status: 'failed', failure, modified: deps.now(), revision: run.revision + 1 }, run.revision).catch(() => undefined);
    throw error;
  }
}
