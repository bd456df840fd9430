import type { ServiceDeps } from '../kernel/deps.js';
import type { IdentityService } from '../identity/index.js';
import { createConsoleAuth } from './console-auth.js';
import { createConsoleReads } from './console-reads.js';
import type { ConsoleService } from './types.js';

export { CONSOLE_SESSION_MS, LOGIN_CODE_MS } from './console-auth.js';
export type * from './types.js';

export function createConsoleService(deps: ServiceDeps, identity: IdentityService): ConsoleService {
  return { ...createConsoleAuth(deps, identity), ...createConsoleReads(deps) };
}
