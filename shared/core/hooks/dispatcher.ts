import { ConflictError, NotFoundError } from '../errors.js';
import type { DeliveryOutcome, DeliveryRecord, HookRecord, HookStore, OutboxEvent } from '../../ports/hook-store.js';
import type { KeyService } from '../../ports/key-service.js';
import { webhookKind } from './payloads.js';
import { hookRuntime, sendToHook, type HookRuntime } from './runtime.js';
import type { HookRuntimeOptions, RetryPolicy } from '../kernel/options.js';

export interface DispatchOptions extends RetryPolicy, HookRuntimeOptions {
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Events and deliveries taken per round (default 25). */
  limit?: number;
  /** How long a claim protects an event or delivery from other dispatchers (default 2 min). */
  claimMs?: number;
  /**
   * How long this run may wait for retries to come due before returning (default 0: deliveries whose retry is
   * later are left for the next run, e.g. the next scheduled invocation).
   */
  maxWaitMs?: number;
}

export interface DispatchSummary {
  events: number;
  attempts: number;
  succeeded: number;
  deadLettered: number;
}

const DEFAULTS = { maxAttempts: 5, baseDelayMs: 2_000, maxDelayMs: 300_000, limit: 25, claimMs: 120_000, maxWaitMs: 0 };

/** Delay before attempt `failed + 1` after `failed` failures: exponential, capped. */
export function backoffDelay(failed: number, policy: RetryPolicy = {}): number {
  const base = policy.baseDelayMs ?? DEFAULTS.baseDelayMs;
  const ceiling = policy.maxDelayMs ?? DEFAULTS.maxDelayMs;
  return Math.min(base * 2 ** Math.max(0, failed - 1), ceiling);
}

/**
 * Whether a hook wants an event: active, not a gate (gates are only asked before updates), already registered when
 * the event happened (fan-out runs later, and a new hook must not receive the backlog), and the filter matches.
 */
export function hookWants(hook: HookRecord, event: Pick<OutboxEvent, 'kind' | 'occurredAt'>): boolean {
  if (!hook.active || hook.gate || hook.createdAt > event.occurredAt) return false;
  return hook.events.length === 0 || hook.events.includes(event.kind);
}

/**
 * One dispatcher run: fans outbox events out into deliveries (one per interested hook, id = event id, so a repeat
 * creates nothing new), then attempts every due delivery, each under a conditional claim, recording every attempt
 * and either a retry time, success, or the dead letter after the last try. Safe to run concurrently and repeatedly.
 * `keys` (the storage's key service) opens the hooks' sealed signing secrets.
 */
export async function dispatchPending(hooks: HookStore, keys: KeyService, options: DispatchOptions = {}): Promise<DispatchSummary> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const limit = options.limit ?? DEFAULTS.limit;
  const claimMs = options.claimMs ?? DEFAULTS.claimMs;
  const maxWaitMs = options.maxWaitMs ?? DEFAULTS.maxWaitMs;
  const runtime = hookRuntime({ ...options, keys });
  const summary: DispatchSummary = { events: 0, attempts: 0, succeeded: 0, deadLettered: 0 };
  const waitUntil = now() + maxWaitMs;

  for (;;) {
    const events = await hooks.claimEvents(now(), now() + claimMs, limit);
    for (const event of events) {
      await fanOut(hooks, event, now());
      summary.events += 1;
    }
    const due = await hooks.dueDeliveries(now(), limit);
    for (const delivery of due) {
      const result = await attemptDelivery(hooks, runtime, delivery, options, now, claimMs);
      if (!result) continue;
      summary.attempts += 1;
      if (result.status === 'succeeded') summary.succeeded += 1;
      if (result.status === 'dead') summary.deadLettered += 1;
    }
    if (events.length > 0 || due.length > 0) continue;
    const remaining = waitUntil - now();
    if (remaining <= 0) return summary;
    const upcoming = await hooks.dueDeliveries(waitUntil, 1);
    if (upcoming.length === 0) return summary;
    await sleep(Math.max(1, Math.min(remaining, (upcoming[0]!.nextAttemptAt ?? now()) - now())));
  }
}

async function fanOut(hooks: HookStore, event: OutboxEvent, at: number): Promise<void> {
  for (const hook of await hooks.listForStack(event.org, event.stackId)) {
    if (!hookWants(hook, event)) continue;
    await hooks.createDelivery({
      org: hook.org,
      ...(hook.stackId !== undefined ? { stackId: hook.stackId } : {}),
      hook: hook.name,
      id: event.id,
      eventId: event.id,
      kind: event.kind,
      payload: event.payload,
      createdAt: at,
    });
  }
  await hooks.completeEvent(event.id);
}

/**
 * Claims `delivery` and makes one attempt. Returns the delivery as recorded afterwards, or `undefined` when another
 * dispatcher holds or finished it.
 */
export async function attemptDelivery(
  hooks: HookStore,
  runtime: HookRuntime,
  delivery: DeliveryRecord,
  policy: RetryPolicy,
  now: () => number,
  claimMs: number,
): Promise<DeliveryRecord | undefined> {
  const claimed = await hooks.claimDelivery(delivery, delivery.revision, now(), now() + claimMs);
  if (!claimed) return undefined;
  return attemptClaimed(hooks, runtime, claimed, policy, now);
}

/**
 * Makes one attempt of a delivery this caller holds the claim on (claimed by `claimDelivery`, or created claimed).
 * Returns the delivery as recorded afterwards, or `undefined` when the claim expired and another dispatcher took over.
 */
export async function attemptClaimed(
  hooks: HookStore,
  runtime: HookRuntime,
  claimed: DeliveryRecord,
  policy: RetryPolicy,
  now: () => number,
): Promise<DeliveryRecord | undefined> {
  const at = now();
  const number = claimed.attempts.length + 1;
  const maxAttempts = policy.maxAttempts ?? DEFAULTS.maxAttempts;
  const hook = await hooks.get(claimed, claimed.hook).catch((error: unknown) => {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  });
  const result = hook
    ? await sendToHook(runtime, hook, { id: claimed.id, kind: webhookKind(claimed.kind), payload: claimed.payload }, 'async')
    : { ok: false, latencyMs: 0, error: 'the hook was removed' };
  const outcome: DeliveryOutcome = result.ok
    ? { status: 'succeeded' }
    : !hook || number >= maxAttempts
      ? { status: 'dead' }
      : { status: 'pending', nextAttemptAt: now() + backoffDelay(number, policy) };
  const attempt = {
    attempt: number,
    at,
    ok: result.ok,
    latencyMs: result.latencyMs,
    ...(result.responseCode !== undefined ? { responseCode: result.responseCode } : {}),
    ...(result.error !== undefined ? { error: result.error.slice(0, 500) } : {}),
  };
  try {
    return await hooks.recordAttempt(claimed, claimed.revision, attempt, outcome);
  } catch (error) {
    // Our claim expired and another dispatcher took the delivery over; its record wins.
    if (error instanceof ConflictError) return undefined;
    throw error;
  }
}
