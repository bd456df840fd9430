/**
 * The closed family of domain errors. Each edge (HTTP in functions/, the terminal in cli/) renders them in one
 * place; nothing else maps errors to statuses. `kind` is a stable machine name, `status` the HTTP status the API
 * answers with, and the message always says what to do next.
 */
export type DomainErrorKind =
  | 'invalid-input'
  | 'unauthorized'
  | 'forbidden'
  | 'not-found'
  | 'conflict'
  | 'lease-held'
  | 'precondition-failed'
  | 'too-large'
  | 'unavailable';

export abstract class DomainError extends Error {
  abstract readonly kind: DomainErrorKind;
  abstract readonly status: number;
  /** True when the same call may succeed if simply retried later. */
  readonly retryable: boolean = false;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The caller sent something we will never accept as it is (bad name, malformed body, broken deployment). */
export class InvalidInputError extends DomainError {
  readonly kind = 'invalid-input';
  readonly status = 400;
}

/**
 * An environment definition that does not check (or does not open): 400, and the edge adds its diagnostics beside
 * code and message, the shape ESC's client reads (`EnvironmentErrorResponse`).
 */
export class DiagnosticsError extends InvalidInputError {
  constructor(
    message: string,
    readonly diagnostics: readonly unknown[],
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** No credentials, or credentials we do not recognise. */
export class UnauthorizedError extends DomainError {
  readonly kind = 'unauthorized';
  readonly status = 401;
}

/** Recognised credentials that may not do this (e.g. an update token that is not live for this update). */
export class ForbiddenError extends DomainError {
  readonly kind = 'forbidden';
  readonly status = 403;
}

/**
 * A caller the permission table refuses (shared/core/kernel/permissions.ts): the audit log records it as
 * `authz.denied` in `org`'s log (`''`: the site log), naming the refused `action`.
 */
export class PermissionDeniedError extends ForbiddenError {
  constructor(
    message: string,
    readonly org: string,
    readonly action: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export class NotFoundError extends DomainError {
  readonly kind = 'not-found';
  readonly status = 404;
}

/** The request is valid but collides with the current state; `details` says with what. */
export class ConflictError extends DomainError {
  readonly kind: DomainErrorKind = 'conflict';
  readonly status = 409;
  constructor(
    message: string,
    readonly details: Record<string, unknown> = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Who holds a stack's exclusive update lease, as returned by a failed acquire. */
export interface LeaseHolder {
  updateId: string;
  holder: string;
  /** Epoch milliseconds. */
  startedAt: number;
  /** Epoch milliseconds. */
  expiresAt: number;
}

/** Another update holds the stack's lease. The message starts the way the Pulumi CLI expects for a 409 on start. */
export class LeaseHeldError extends ConflictError {
  override readonly kind = 'lease-held';
  constructor(
    readonly lease: LeaseHolder,
    options?: ErrorOptions,
  ) {
    super(
      `Conflict: Another update is currently in progress. Update ${lease.updateId} by ${lease.holder} ` +
        `started at ${new Date(lease.startedAt).toISOString()} and holds the stack until ` +
        `${new Date(lease.expiresAt).toISOString()}. Wait for it to finish, or run 'stackyard cancel' ` +
        `(or 'pulumi cancel') if it is no longer running.`,
      { ...lease },
      options,
    );
  }
}

/**
 * An update completed as succeeded without the runs of its required policy packs, or past a mandatory violation: the
 * service recorded it as failed (docs/policy.md, "What the service checks"); the message names the packs.
 */
export class PolicyBypassedError extends ConflictError {}

/**
 * An organization already has the most OIDC trust policies it may have. The stores raise it from the same atomic
 * write that would have added the policy, so concurrent adds never pass the cap and a refused add changes nothing.
 */
export class OidcPolicyLimitError extends InvalidInputError {
  constructor(
    readonly limit: number,
    options?: ErrorOptions,
  ) {
    super(`An organization has at most ${limit} OIDC trust policies: remove one first.`, options);
  }
}

/** A precondition the operator set up refused the request (a hook gate denied an update, or could not answer). */
export class PreconditionFailedError extends DomainError {
  readonly kind = 'precondition-failed';
  readonly status = 412;
}

export class TooLargeError extends DomainError {
  readonly kind = 'too-large';
  readonly status = 413;
}

/** A dependency (storage, key service) is unavailable; retrying later may succeed. */
export class UnavailableError extends DomainError {
  readonly kind = 'unavailable';
  readonly status = 503;
  override readonly retryable = true;
  /** When to retry, answered as `Retry-After`: long enough for the SDK's own retries to have given up on a blip. */
  readonly retryAfterSeconds: number = 2;
}

export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}
