import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import middy, { type MiddlewareObj } from '@middy/core';
import type { Context, DynamoDBStreamEvent, ScheduledEvent } from 'aws-lambda';
import { dispatchPending, type DispatchOptions, type DispatchSummary } from '../shared/core/hooks/dispatcher.js';
import { hookRuntime } from '../shared/core/hooks/runtime.js';
import type { DeliveryRecord, HookStore } from '../shared/ports/hook-store.js';
import type { KeyService } from '../shared/ports/key-service.js';
import { DEAD_LETTER_METRIC } from './hook-settings.js';

/** What starts a run: a batch of outbox inserts from the table's stream, or the one-minute schedule. */
export type HookDispatcherEvent = DynamoDBStreamEvent | ScheduledEvent;

export type HookDispatcherHandler = (event: HookDispatcherEvent, context: Context) => Promise<DispatchSummary>;

export interface HookDispatcherSetup {
  hooks: HookStore;
  /** Opens the hooks' sealed signing secrets. */
  keys: KeyService;
  /** Retry policy and how destinations are reached (timeouts, the allowed Lambda functions). */
  dispatch: DispatchOptions;
  /** The `Deployment` dimension of the dead-letter metric: the CloudFormation stack name. */
  deployment: string;
}

export interface HookDispatcherLimits {
  /** Time kept free at the end of an invocation on top of one delivery timeout (default 5 s). */
  reserveMs?: number;
  /** Where the DeadLetters metric goes (default {@link createDeadLetterMetrics}: EMF on stdout, which Lambda ships). */
  metrics?: Metrics;
  /** Lambda-only middlewares (tracing: functions/observability.ts). */
  middlewares?: readonly MiddlewareObj[];
}

const DEFAULT_RESERVE_MS = 5_000;

/**
 * The dispatcher function: each invocation runs `dispatchPending` once, whatever triggered it. The stream records
 * are only a wake-up call: the run takes its work from the table itself (claims, due deliveries), so a record it
 * never saw, or one another run already handled, changes nothing.
 *
 * A run stops taking new work one delivery timeout plus `reserveMs` before the Lambda timeout, so the last attempt
 * finishes and is recorded before Lambda would kill it; what is left stays due for the next run. Deliveries that
 * became dead letters are published as the `Stackyard/DeadLetters` metric (Powertools Metrics, EMF), which the
 * infra alarms on. Logs carry counts, hook names, delivery ids and response codes only: never a URL (a chat
 * webhook's path is its credential), a payload or an error text.
 */
export function createHookDispatcherHandler(
  logger: Logger,
  setup: () => HookDispatcherSetup,
  limits: HookDispatcherLimits = {},
): HookDispatcherHandler {
  const reserveMs = limits.reserveMs ?? DEFAULT_RESERVE_MS;
  const metrics = limits.metrics ?? createDeadLetterMetrics();
  let ready: HookDispatcherSetup | undefined;

  const base = async (event: HookDispatcherEvent, context: Context): Promise<DispatchSummary> => {
    ready ??= setup();
    const { hooks, keys, dispatch, deployment } = ready;
    const now = dispatch.now ?? Date.now;
    const started = now();
    const stopAt = started + context.getRemainingTimeInMillis() - hookRuntime(dispatch).deliveryTimeoutMs - reserveMs;
    const summary = await dispatchPending(boundedStore(hooks, () => now() < stopAt, (delivery) => logAttempt(logger, delivery)), keys, dispatch);
    if (summary.deadLettered > 0) publishDeadLetters(metrics, deployment, summary.deadLettered);
    const finished = {
      ...triggerOf(event),
      ...summary,
      durationMs: now() - started,
    };
    if (now() >= stopAt) {
      logger.warn('Hook dispatch stopped before the function timeout; the remaining work is left for the next run', finished);
    } else {
      logger.info('Hook dispatch finished', finished);
    }
    return summary;
  };
  return middy(base).use(injectLambdaContext(logger)).use([...(limits.middlewares ?? [])]) as unknown as HookDispatcherHandler;
}

/**
 * The dispatcher's Powertools Metrics: namespace `Stackyard` and no default dimension. Powertools would add
 * `service`, but the alarm (infra/lib/constructs/hook-dispatcher.ts) watches `DeadLetters` by `Deployment` alone,
 * as the metric has always been published.
 */
export function createDeadLetterMetrics(): Metrics {
  const metrics = new Metrics({ namespace: DEAD_LETTER_METRIC.namespace });
  metrics.clearDefaultDimensions();
  return metrics;
}

/** Publishes `count` new dead letters of `deployment` now: one embedded-metric-format line, the `DeadLetters` datapoint. */
export function publishDeadLetters(metrics: Metrics, deployment: string, count: number): void {
  metrics.addDimension(DEAD_LETTER_METRIC.dimension, deployment);
  metrics.addMetric(DEAD_LETTER_METRIC.name, MetricUnit.Count, count);
  metrics.publishStoredMetrics();
}

function triggerOf(event: HookDispatcherEvent): { trigger: string; records?: number } {
  if ('Records' in event && Array.isArray(event.Records)) return { trigger: 'stream', records: event.Records.length };
  if ('detail-type' in event && event['detail-type'] === 'Scheduled Event') return { trigger: 'schedule' };
  return { trigger: 'direct' };
}

function logAttempt(logger: Logger, delivery: DeliveryRecord): void {
  const last = delivery.attempts.at(-1);
  if (!last || last.ok) return;
  const fields = {
    org: delivery.org,
    hook: delivery.hook,
    deliveryId: delivery.id,
    event: delivery.kind,
    attempt: last.attempt,
    ...(last.responseCode !== undefined ? { responseCode: last.responseCode } : {}),
  };
  if (delivery.status === 'dead') {
    logger.error('Hook delivery dead-lettered after its last attempt; see `stackyard hook deliveries`', fields);
  } else {
    logger.warn('Hook delivery attempt failed; retrying later', { ...fields, nextAttemptAt: delivery.nextAttemptAt });
  }
}

/**
 * The store as one invocation sees it: once `open()` turns false it hands out no more work (no events, no due
 * deliveries, no claims), so `dispatchPending` winds down and returns; everything else passes through, and every
 * recorded attempt is reported to `recorded`.
 */
function boundedStore(store: HookStore, open: () => boolean, recorded: (delivery: DeliveryRecord) => void): HookStore {
  return {
    create: (hook) => store.create(hook),
    get: (scope, name) => store.get(scope, name),
    listByOrg: (org) => store.listByOrg(org),
    listForStack: (org, stackId) => store.listForStack(org, stackId),
    delete: (scope, name) => store.delete(scope, name),
    claimEvents: async (now, claimedUntil, limit) => (open() ? store.claimEvents(now, claimedUntil, limit) : []),
    completeEvent: (eventId) => store.completeEvent(eventId),
    createDelivery: (delivery) => store.createDelivery(delivery),
    getDelivery: (ref) => store.getDelivery(ref),
    listDeliveries: (scope, name, limit) => store.listDeliveries(scope, name, limit),
    dueDeliveries: async (now, limit) => (open() ? store.dueDeliveries(now, limit) : []),
    claimDelivery: async (ref, expectedRevision, now, claimedUntil) =>
      open() ? store.claimDelivery(ref, expectedRevision, now, claimedUntil) : undefined,
    recordAttempt: async (ref, expectedRevision, attempt, next) => {
      const delivery = await store.recordAttempt(ref, expectedRevision, attempt, next);
      recorded(delivery);
      return delivery;
    },
    listDeadLetters: (org, limit) => store.listDeadLetters(org, limit),
  };
}
