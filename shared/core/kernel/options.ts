/**
 * The options every service may be given, and the types they are made of (hook destinations, retries, the Lambda
 * invoker, OIDC checks), here so that the composition root and the contexts share them without importing each other.
 */
import type { AwsProviderApi } from '../../ports/aws-provider-api.js';
import type { KeyService } from '../../ports/key-service.js';
import type { RunQueue } from '../../ports/run-queue.js';
import type { ScheduleTriggers } from '../../ports/schedule-triggers.js';

/** How the services behave; every field has a default. */
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
  /** The AWS calls environment providers make (the edges give the SDK adapter); absent, a provider that calls AWS fails saying so. */
  awsProviderApi?: AwsProviderApi;
  /** Where queued deployment runs are announced (SQS on AWS); absent on serve, whose runners poll the store. */
  runQueue?: RunQueue;
  /** What wakes the fire function at each schedule's times (EventBridge Scheduler on AWS); absent on serve, whose loop polls. */
  scheduleTriggers?: ScheduleTriggers;
}

/** How hooks reach their destinations; shared by the dispatcher, ping/redeliver and gates. */
export interface HookRuntimeOptions {
  /** Allow http:// and private/loopback/link-local targets (tests, closed networks). Default: STACKYARD_HOOKS_ALLOW_PRIVATE=true. */
  allowPrivate?: boolean;
  /** Per-attempt timeout of asynchronous deliveries (default 10 s). */
  deliveryTimeoutMs?: number;
  /** Per-gate timeout; never more than 10 s (default 10 s). */
  gateTimeoutMs?: number;
  /** Lambda functions hooks may name (the operator's list); absent = any well-formed ARN. */
  allowedLambdaArns?: readonly string[];
  lambda?: LambdaInvoker;
  /** Opens the hooks' sealed signing secrets (the storage's key service); signed deliveries fail without it. */
  keys?: KeyService;
}

/** How often and how late a failed hook delivery is tried again. */
export interface RetryPolicy {
  /** Attempts per delivery, the first included (default 5). After the last failed one the delivery is dead-lettered. */
  maxAttempts?: number;
  /** Delay before the second attempt; doubles after each failure (default 2 s). */
  baseDelayMs?: number;
  /** Ceiling of the delay (default 5 min). */
  maxDelayMs?: number;
}

/** Invokes Lambda destinations; the SDK's own chain supplies region, credentials and AWS_ENDPOINT_URL_LAMBDA. */
export interface LambdaInvoker {
  /** `Event`: queued by Lambda, answered 202. `RequestResponse`: the function's result in `body`. */
  invoke(arn: string, payload: string, mode: 'Event' | 'RequestResponse', timeoutMs: number): Promise<SendResult>;
}

/** One attempt to deliver to a hook's destination, as the delivery log records it. */
export interface SendResult {
  ok: boolean;
  latencyMs: number;
  responseCode?: number;
  /** The response body (gates read their answer from it), at most `MAX_RESPONSE_BYTES`. */
  body?: string;
  error?: string;
}

/** Fetches a JSON document over HTTPS; the one I/O the OIDC verifier does (tests inject their own). */
export type JsonFetcher = (url: string) => Promise<unknown>;

/** How ID tokens are checked; every field has a default (docs/security.md, "OIDC for CI"). */
export interface OidcOptions {
  /** How discovery documents and key sets are fetched (default: HTTPS through the SSRF guard, `httpsJsonFetcher`). */
  fetchJson?: JsonFetcher;
  /** Allowed clock difference for `exp`, `nbf` and `iat` (default 60 s). */
  clockSkewSeconds?: number;
  /** How long a fetched key set is used before it is fetched again (default 10 minutes). */
  keysCacheMs?: number;
  /** At most one refetch per issuer in this time for an unknown key id (default 10 s), so random ids cannot hammer it. */
  unknownKidRefetchMs?: number;
}
