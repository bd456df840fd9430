import { Logger } from '@aws-lambda-powertools/logger';
import { parseTriggerInput, SCHEDULE_FIRE_ARN_VARIABLE, scheduleTriggersFromEnv } from '../../shared/adapters/aws/eventbridge-schedule-triggers.js';
import { runQueueFromEnv } from '../../shared/adapters/aws/sqs-run-queue.js';
import { auditTable, deploymentTable, hookTable, scheduleTable, stackTable } from '../../shared/adapters/aws/table-stores.js';
import { serviceDeps } from '../../shared/core/compose/service-deps.js';
import type { ServiceDeps } from '../../shared/core/kernel/deps.js';
import { fireTriggeredSchedule, type TriggerOutcome } from '../../shared/core/schedules/scheduler.js';
import { lambdaStorage } from '../lambda-storage.js';
import { kmsParts } from '../storage-parts/kms.js';

const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'stackyard', persistentKeys: { handlerGroup: 'schedule-fire' } });

let deps: ServiceDeps | undefined;

/**
 * Built once per cold start: the tables a firing touches (the schedule, its stack and settings, the run, the audit
 * log and its hook outbox), the data keys (settings secrets sealed into the run), the run queue, and the triggers (a
 * trigger whose record is gone is removed). The function's own ARN comes from the invocation: the CDK app cannot
 * name it in the function's own environment.
 */
function fireDeps(functionArn: string | undefined): ServiceDeps {
  const env = functionArn ? { ...process.env, [SCHEDULE_FIRE_ARN_VARIABLE]: functionArn } : process.env;
  deps ??= serviceDeps(lambdaStorage([stackTable, scheduleTable, deploymentTable, auditTable, hookTable], [kmsParts]), {
    runQueue: runQueueFromEnv(env),
    scheduleTriggers: scheduleTriggersFromEnv(env),
  });
  return deps;
}

/**
 * Entry point of the schedule fire function, invoked by EventBridge Scheduler with `{ stackId, scheduleId }`
 * (docs/deployments.md, "Schedules on AWS"). It fires only what the schedule's record says is due; a run that could
 * not be queued is logged and not retried (the schedule has moved on to its next time, as on serve).
 */
export async function handler(event: unknown, context?: { invokedFunctionArn?: string }): Promise<TriggerOutcome | { kind: 'not-a-trigger' }> {
  const target = parseTriggerInput(event);
  if (!target) {
    logger.warn('not a schedule trigger; dropped');
    return { kind: 'not-a-trigger' };
  }
  const outcome = await fireTriggeredSchedule(fireDeps(context?.invokedFunctionArn), target);
  if (outcome.kind === 'failed') {
    logger.error('fired a schedule but could not queue its run', { ...target, dueAt: outcome.dueAt, error: (outcome.error as Error).message });
    return { kind: 'failed', dueAt: outcome.dueAt, error: (outcome.error as Error).message };
  }
  logger.info('schedule trigger', { ...target, outcome: outcome.kind, ...('runId' in outcome ? { runId: outcome.runId } : {}) });
  return outcome;
}
