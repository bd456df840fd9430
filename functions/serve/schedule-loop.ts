import { InvalidInputError } from '../../shared/core/errors.js';
import type { ServiceDeps } from '../../shared/core/kernel/deps.js';
import { fireDueSchedules, type SchedulerTick } from '../../shared/core/schedules/scheduler.js';

const DEFAULT_TICK_MS = 15_000;

/**
 * STACKYARD_SCHEDULER_TICK_MS: how often `serve` looks for due schedules (default 15 s, 10 ms to 10 min). A schedule
 * fires within one tick of its time; several `serve` processes on one store fire each due time once.
 */
export function schedulerTickMs(env: NodeJS.ProcessEnv): number {
  const text = env.STACKYARD_SCHEDULER_TICK_MS?.trim();
  if (text === undefined || text === '') return DEFAULT_TICK_MS;
  const value = Number(text);
  if (!/^[0-9]{1,9}$/.test(text) || value < 10 || value > 600_000) {
    throw new InvalidInputError(`STACKYARD_SCHEDULER_TICK_MS must be a whole number from 10 to 600000, not '${text.slice(0, 20)}'. Unset it for the default.`);
  }
  return value;
}

/** The running loop. */
export interface ScheduleLoop {
  /** Starts no new tick, then waits for the one under way. */
  stop(): Promise<void>;
}

/**
 * Runs `fireDueSchedules` every `tickMs` in this process (one tick at a time; the pause starts when a tick ends), as
 * EventBridge Scheduler does on AWS. `onTick` hears what each tick did; a failed tick is reported and the next tries
 * again (a due schedule stays due until one fires it).
 */
export function startScheduleLoop(deps: ServiceDeps, tickMs: number, onTick: (tick: SchedulerTick) => void, onError: (error: unknown) => void): ScheduleLoop {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const next = () => {
    if (stopped) return;
    timer = setTimeout(run, tickMs);
    timer.unref();
  };
  const run = () => {
    running = fireDueSchedules(deps).then(onTick, onError).finally(next);
  };
  next();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
