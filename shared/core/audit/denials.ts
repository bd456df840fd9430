import { PermissionDeniedError } from '../errors.js';
import type { ServiceDeps } from '../kernel/deps.js';
import type { Principal } from '../kernel/principal.js';
import { auditDenial } from './audit.js';

/** Denials already recorded, so one that passes through a service calling another is recorded once. */
const recorded = new WeakSet<PermissionDeniedError>();

function isPrincipal(value: unknown): value is Principal {
  return typeof value === 'object' && value !== null && typeof (value as Principal).login === 'string' && Array.isArray((value as Principal).orgs);
}

/**
 * Wraps every method of a service so that a refusal by the permission table (`PermissionDeniedError`, thrown by
 * authorization.ts for the principal in the first argument) is recorded as `authz.denied` before it reaches the
 * caller. One place, so every route and the local backend record denials alike. The refusal stands even if the log
 * cannot take the entry.
 */
export function auditingDenials<S extends object>(deps: ServiceDeps, service: S): S {
  const wrapped = { ...service } as Record<string, unknown>;
  for (const [name, member] of Object.entries(service)) {
    if (typeof member !== 'function') continue;
    wrapped[name] = (...args: unknown[]) => {
      const result: unknown = member.apply(service, args);
      const principal = args[0];
      if (!(result instanceof Promise) || !isPrincipal(principal)) return result;
      return result.catch(async (error: unknown) => {
        if (error instanceof PermissionDeniedError && !recorded.has(error)) {
          recorded.add(error);
          await auditDenial(deps, principal, error).catch(() => undefined);
        }
        throw error;
      });
    };
  }
  return wrapped as S;
}
