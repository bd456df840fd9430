/** The schedules calls of `login --local` (loaded on first use: see lazy-sub-backend.ts). */
import { UserError } from '../output/errors.js';
import type { SchedulesBackend } from './schedules-backend.js';

/** The local backend has no scheduler and no runners: every call says so. */
export function localSchedulesBackend(): SchedulesBackend {
  const refuse = async (): Promise<never> => {
    throw new UserError(
      'the local backend does not support schedules',
      'Schedules run on a stackyard service (`stackyard serve --runners N`, then `stackyard login <url>`).',
    );
  };
  return { list: refuse, get: refuse, create: refuse, update: refuse, setPaused: refuse, remove: refuse };
}
