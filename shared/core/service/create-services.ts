import type { Storage } from '../../ports/index.js';
import { createConsoleService } from '../console/index.js';
import { createHookService } from '../hooks/hook-service.js';
import type { RetryPolicy } from '../hooks/dispatcher.js';
import type { HookRuntimeOptions } from '../hooks/runtime.js';
import { createAccessService } from './access-service.js';
import { createAuditService } from '../audit/audit.js';
import { createIdentityService } from './identity-service.js';
import { createSecretService } from './secret-service.js';
import type { StackKeys } from './secrets-envelope.js';
import { createServiceDeps } from './service-deps.js';
import { createStackRestoreService } from './stack-restore.js';
import { createStackService } from './stack-service.js';
import type { Services } from './types.js';
import { createUpdateService } from './update-service.js';

export interface ServiceOptions {
  now?: () => number;
  /** URL users log in with; written into secrets_providers.state.url */
  serviceUrl?: string;
  dataKeyCacheMs?: number;
  defaultLeaseMs?: number;
  minLeaseMs?: number;
  maxLeaseMs?: number;
  /** Stacks per page of `stacks.list` (default 100). */
  listPageSize?: number;
  /** How hooks reach destinations (SSRF allowance, timeouts, Lambda client) and retry (redeliver). */
  hooks?: HookRuntimeOptions & RetryPolicy;
}

/** What every service is built from; one instance per `createServices` call, shared by all four services. */
export interface ServiceDeps {
  storage: Storage;
  /** Domain clock, epoch milliseconds. */
  now: () => number;
  /** The per-stack data keys and the secrets envelope on them. */
  keys: StackKeys;
  options: ServiceOptions;
}

export function createServices(storage: Storage, options: ServiceOptions = {}): Services {
  const deps = createServiceDeps(storage, options);
  const identity = createIdentityService(deps);
  return {
    identity,
    access: createAccessService(deps),
    audit: createAuditService(deps),
    stacks: createStackService(deps),
    restore: createStackRestoreService(deps),
    updates: createUpdateService(deps),
    secrets: createSecretService(deps),
    hooks: createHookService(deps),
    console: createConsoleService(deps, identity),
  };
}
