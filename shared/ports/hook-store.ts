/**
 * Hooks (webhooks and Lambda destinations), the event outbox and the delivery log (DynamoDB single table in AWS,
 * lock-protected files locally). Design and reasons: docs/hooks.md.
 *
 * Guarantees:
 * - `create` is create-if-absent by (scope, name): a second hook with the same name in the same scope fails with
 *   `ConflictError` and changes nothing. `get`/`delete` of a missing hook fail with `NotFoundError`.
 * - Outbox events are only ever written by the stack and update stores, in the same atomic write as the state
 *   change that causes them (`StackStore.create/update/rename/delete`, `UpdateStore.update` take `events`): an
 *   event exists if and only if its change happened.
 * - `claimEvents` and `claimDelivery` are conditional writes: while a claim is live (`claimedUntil >= now`) no
 *   other caller obtains the same event or delivery, so two dispatchers never run the same attempt at once.
 *   A claim that expires (its dispatcher died) can be taken again: delivery is at-least-once.
 * - `createDelivery` is create-if-absent by (hook, delivery id), so fanning out one event twice yields one delivery.
 *   A delivery created with `claimedUntil` is held by its creator like a claim: `dueDeliveries` skips it until then.
 * - `recordAttempt` applies only while the caller's claim is the delivery's latest write (its `revision`);
 *   otherwise `ConflictError` and nothing changes.
 * - Nothing here ever holds a signing secret except the hook record itself; events and deliveries never do.
 */
export interface HookStore {
  create(hook: HookRecord): Promise<HookRecord>;
  get(scope: HookScope, name: string): Promise<HookRecord>;
  /** Every hook of the organization: its own and those of each of its stacks, sorted by scope, then name. */
  listByOrg(org: string): Promise<HookRecord[]>;
  /** The hooks that see a stack's events: the organization's hooks and the stack's own, sorted as `listByOrg`. */
  listForStack(org: string, stackId: string): Promise<HookRecord[]>;
  delete(scope: HookScope, name: string): Promise<void>;

  /** Claims up to `limit` unprocessed outbox events (oldest first) until `claimedUntil`. */
  claimEvents(now: number, claimedUntil: number, limit: number): Promise<OutboxEvent[]>;
  /** Removes a fanned-out event from the outbox; a missing event is not an error. */
  completeEvent(eventId: string): Promise<void>;

  /** Create-if-absent: returns the stored delivery and whether this call created it. */
  createDelivery(delivery: NewDelivery): Promise<{ delivery: DeliveryRecord; created: boolean }>;
  getDelivery(ref: DeliveryRef): Promise<DeliveryRecord>;
  /** A hook's deliveries, newest first (delivery ids sort by time). */
  listDeliveries(scope: HookScope, name: string, limit: number): Promise<DeliveryRecord[]>;
  /** Pending deliveries whose next attempt is due and whose claim (if any) has expired, oldest due first. */
  dueDeliveries(now: number, limit: number): Promise<DeliveryRecord[]>;
  /**
   * Claims a pending delivery until `claimedUntil` if it is still at `expectedRevision` and unclaimed (or its claim
   * expired). Returns the claimed record, or `undefined` when someone else holds or finished it.
   */
  claimDelivery(ref: DeliveryRef, expectedRevision: number, now: number, claimedUntil: number): Promise<DeliveryRecord | undefined>;
  /** Appends an attempt and moves the delivery on (retry later, succeeded, or dead-lettered); releases the claim. */
  recordAttempt(ref: DeliveryRef, expectedRevision: number, attempt: DeliveryAttempt, next: DeliveryOutcome): Promise<DeliveryRecord>;
  /** Dead-lettered deliveries of an organization, newest first. */
  listDeadLetters(org: string, limit: number): Promise<DeliveryRecord[]>;
}

/** An organization's hook (all its stacks) or one stack's (by immutable id, so a rename keeps its hooks). */
export interface HookScope {
  org: string;
  stackId?: string;
}

export type HookEventKind =
  | 'stack_created'
  | 'stack_deleted'
  | 'preview_succeeded'
  | 'preview_failed'
  | 'update_succeeded'
  | 'update_failed'
  | 'destroy_succeeded'
  | 'destroy_failed'
  | 'refresh_succeeded'
  | 'refresh_failed'
  | 'update_started'
  | 'update_cancelled'
  | 'lease_expired'
  | 'drift_detected'
  | 'plan_approval_requested'
  | 'plan_approved'
  | 'plan_rejected';

/** Pulumi Cloud's webhook formats. */
export type HookFormat = 'raw' | 'slack' | 'ms_teams';

export type HookDestination =
  | {
      kind: 'https';
      url: string;
      /**
       * The HMAC key for `Pulumi-Webhook-Signature`, sealed under its own data key (core/hooks/hook-secrets.ts);
       * the plaintext is never stored, returned or logged.
       */
      sealedSecret?: string;
      /** How deliveries are written: Pulumi's raw JSON (absent), a Slack message or a Microsoft Teams card. */
      format?: HookFormat;
    }
  | { kind: 'lambda'; arn: string };

export interface HookRecord extends HookScope {
  name: string;
  /** Events the hook receives; empty = all. */
  events: HookEventKind[];
  destination: HookDestination;
  active: boolean;
  /** Invoked synchronously before a non-dry-run update takes its lease; answers allow or deny. */
  gate: boolean;
  /** A gate that times out or errors lets the update start (default: it refuses it). */
  failOpen: boolean;
  createdBy: string;
  /** Epoch milliseconds. */
  createdAt: number;
}

/**
 * A state change to announce, written atomically with the change itself. `payload` is the body receivers get
 * (Pulumi Cloud field names); it never holds a secret.
 */
export interface OutboxEvent {
  /** `<epoch ms, 13 digits>-<16 hex>`, so ids sort by time. */
  id: string;
  kind: HookEventKind;
  org: string;
  stackId: string;
  /** Epoch milliseconds. */
  occurredAt: number;
  payload: Record<string, unknown>;
}

export interface DeliveryRef extends HookScope {
  hook: string;
  id: string;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'dead';

export interface DeliveryAttempt {
  attempt: number;
  /** Epoch milliseconds when the attempt started. */
  at: number;
  ok: boolean;
  latencyMs: number;
  /** HTTP status (HTTPS destinations, or the Lambda Invoke API's status). */
  responseCode?: number;
  /** Why it failed, without any secret (no URL query strings, no headers). */
  error?: string;
}

export interface NewDelivery extends DeliveryRef {
  eventId: string;
  kind: HookEventKind | 'ping';
  payload: Record<string, unknown>;
  /** Epoch milliseconds. */
  createdAt: number;
  /** Set by redeliver: the delivery this one repeats. */
  redeliveryOf?: string;
  /**
   * Set when the creator attempts the delivery itself at once (ping, redeliver): the delivery is created claimed
   * until then, so no dispatcher takes it first; if the creator dies, a dispatcher takes it after this time.
   */
  claimedUntil?: number;
}

export interface DeliveryRecord extends NewDelivery {
  status: DeliveryStatus;
  attempts: DeliveryAttempt[];
  /** Epoch milliseconds when the next attempt is due (pending only). */
  nextAttemptAt?: number;
  /** Epoch milliseconds until which a dispatcher holds it. */
  claimedUntil?: number;
  /** Optimistic-concurrency counter: every successful write bumps it by one. */
  revision: number;
}

export type DeliveryOutcome =
  | { status: 'pending'; nextAttemptAt: number }
  | { status: 'succeeded' }
  | { status: 'dead' };
