import type { Storage } from '../../ports/index.js';
import { createConsoleService } from '../console/index.js';
import { createHookService } from '../hooks/hook-service.js';
import type { RetryPolicy } from '../hooks/dispatcher.js';
import type { HookRuntimeOptions } from '../hooks/runtime.js';
import { createOidcService } from '../oidc/oidc-service.js';
import type { OidcOptions } from '../oidc/types.js';
import { createAccessService } from './access-service.js';
import { createAuditService } from '../audit/audit.js';
import { auditingDenials } from '../audit/denials.js';
import { createIdentityService } from './identity-service.js';
import { createSecretService } from './secret-service.js';
import { serviceDeps } from './service-deps.js';
import { createStackRestoreService } from './stack-restore.js';
import { createStackService } from './stack-service.js';
import type { StackKeys } from './secrets-envelope.js';
import type { Services } from './types.js';
import { createUpdateService } from './update-service.js';

export { serviceDeps } from './service-deps.js';

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
  /** How OIDC ID tokens are checked (issuer fetches, clock skew, key caching). */
  oidc?: OidcOptions;
  /** How long an audit intent may stay unsettled before recovery publishes it (default AUDIT_INTENT_GRACE_MS). */
  auditGraceMs?: number;
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
  const deps = serviceDeps(storage, options);
  const identity = auditingDenials(deps, createIdentityService(deps));
  return {
    identity,
    access: auditingDenials(deps, createAccessService(deps)),
    audit: auditingDenials(deps, createAuditService(deps)),
    oidc: auditingDenials(deps, createOidcService(deps)),
    stacks: auditingDenials(deps, createStackService(deps)),
    restore: auditingDenials(deps, createStackRestoreService(deps)),
    updates: auditingDenials(deps, createUpdateService(deps)),
    secrets: auditingDenials(deps, createSecretService(deps)),
    hooks: auditingDenials(deps, createHookService(deps)),
    console: auditingDenials(deps, createConsoleService(deps, identity)),
  };
}
