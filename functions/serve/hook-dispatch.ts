import { InvalidInputError } from '../../shared/core/errors.js';
import { dispatchPending } from '../../shared/core/hooks/dispatcher.js';
import { type RetryPolicy } from '../../shared/core/kernel/options.js';
import { sdkLambdaInvoker } from '../../shared/core/hooks/lambda.js';
import { type LambdaInvoker } from '../../shared/core/kernel/options.js';
import type { HookRuntimeOptions } from '../../shared/core/kernel/options.js';
import type { HookStore } from '../../shared/ports/hook-store.js';
import type { KeyService } from '../../shared/ports/key-service.js';
import { hookOptionsFromEnv } from '../hook-settings.js';

/** How `stackyard serve` delivers hooks: in-process, the dispatcher run every `dispatchEveryMs`. */
export interface ServeHookSettings {
  dispatchEveryMs: number;
  /** Shared by the services (gates, ping, redeliver) and the dispatcher loop. */
  hooks: HookRuntimeOptions & RetryPolicy;
}

const DEFAULT_DISPATCH_EVERY_MS = 1_000;

function whole(env: NodeJS.ProcessEnv, name: string, min: number, max: number): number | undefined {
  const text = env[name]?.trim();
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!/^[0-9]{1,10}$/.test(text) || value < min || value > max) {
    throw new InvalidInputError(
      `${name} must be a whole number from ${min} to ${max}, not '${text.slice(0, 20)}'. Unset it for the default.`,
    );
  }
  return value;
}

/** One SDK client per process, built on first use, so a serve without Lambda hooks never loads its configuration. */
function lazyLambdaInvoker(): LambdaInvoker {
  let invoker: LambdaInvoker | undefined;
  return { invoke: (...args) => (invoker ??= sdkLambdaInvoker()).invoke(...args) };
}

/**
 * Hook settings of `serve`: STACKYARD_HOOKS_DISPATCH_MS (pause between dispatcher runs, default 1 s),
 * STACKYARD_HOOKS_MAX_ATTEMPTS, STACKYARD_HOOKS_BASE_DELAY_MS and STACKYARD_HOOKS_MAX_DELAY_MS (retry policy,
 * defaults 5, 2 s and 5 min), STACKYARD_HOOKS_ALLOW_PRIVATE=true (http:// and private addresses, for receivers on
 * this machine) and STACKYARD_HOOK_FUNCTION_ARNS (the Lambda functions hooks may name; unset: any).
 */
export function serveHookSettings(env: NodeJS.ProcessEnv): ServeHookSettings {
  const maxAttempts = whole(env, 'STACKYARD_HOOKS_MAX_ATTEMPTS', 1, 20);
  const baseDelayMs = whole(env, 'STACKYARD_HOOKS_BASE_DELAY_MS', 1, 3_600_000);
  const maxDelayMs = whole(env, 'STACKYARD_HOOKS_MAX_DELAY_MS', 1, 86_400_000);
  return {
    dispatchEveryMs: whole(env, 'STACKYARD_HOOKS_DISPATCH_MS', 10, 600_000) ?? DEFAULT_DISPATCH_EVERY_MS,
    hooks: {
      ...hookOptionsFromEnv(env),
      allowPrivate: env.STACKYARD_HOOKS_ALLOW_PRIVATE === 'true',
      lambda: lazyLambdaInvoker(),
      ...(maxAttempts !== undefined ? { maxAttempts } : {}),
      ...(baseDelayMs !== undefined ? { baseDelayMs } : {}),
      ...(maxDelayMs !== undefined ? { maxDelayMs } : {}),
    },
  };
}

export interface HookDispatchLoop {
  /** Takes no new work, then waits for the attempt under way to be recorded. */
  stop(): Promise<void>;
}

/**
 * The store as the loop sees it: once stopped it hands out no more events or due deliveries, so the run under way
 * winds down after its current attempt instead of holding up the server's shutdown.
 */
function windingDown(store: HookStore, open: () => boolean): HookStore {
  return Object.assign(Object.create(store) as HookStore, {
    claimEvents: async (now: number, claimedUntil: number, limit: number) => (open() ? store.claimEvents(now, claimedUntil, limit) : []),
    dueDeliveries: async (now: number, limit: number) => (open() ? store.dueDeliveries(now, limit) : []),
  });
}

/**
 * Runs `dispatchPending` every `dispatchEveryMs` (one run at a time; the pause starts when a run ends), which is what
 * the dispatcher function's stream trigger and schedule do in AWS; the key service opens the hooks' sealed signing
 * secrets. A failed run is reported and the next one tries again: the work stays in the store.
 */
export function startHookDispatchLoop(
  storage: { hooks: HookStore; keys: KeyService },
  settings: ServeHookSettings,
  onError: (error: unknown) => void,
): HookDispatchLoop {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const store = windingDown(storage.hooks, () => !stopped);
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(run, settings.dispatchEveryMs);
    timer.unref();
  };
  const run = () => {
    running = dispatchPending(store, storage.keys, settings.hooks).then(() => undefined, onError).finally(schedule);
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
