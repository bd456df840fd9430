import { randomBytes } from 'node:crypto';
import { InvalidInputError } from '../errors.js';
import type { HookEventKind, OutboxEvent } from '../../ports/hook-store.js';

/** Every event a hook can subscribe to: Pulumi Cloud's names first, then Stackyard's own. */
export const HOOK_EVENT_KINDS: readonly HookEventKind[] = [
  'stack_created',
  'stack_deleted',
  'preview_succeeded',
  'preview_failed',
  'update_succeeded',
  'update_failed',
  'destroy_succeeded',
  'destroy_failed',
  'refresh_succeeded',
  'refresh_failed',
  'update_started',
  'update_cancelled',
  'lease_expired',
  'drift_detected',
  'plan_approval_requested',
  'plan_approved',
  'plan_rejected',
];

const KINDS: ReadonlySet<string> = new Set(HOOK_EVENT_KINDS);
const EVENT_ID = /^\d{13}-[0-9a-f]{16}$/;
/** An event is a small JSON document; the outbox is not a place for deployments. */
const MAX_PAYLOAD_BYTES = 32 * 1024;

export function isHookEventKind(value: unknown): value is HookEventKind {
  return typeof value === 'string' && KINDS.has(value);
}

/** `<epoch ms, 13 digits>-<16 hex>`: unique, and sorts by time. */
export function newEventId(now: number): string {
  return `${String(Math.max(0, Math.floor(now))).padStart(13, '0')}-${randomBytes(8).toString('hex')}`;
}

/** Checks events before a store writes them, so a malformed event can never ride along with a state change. */
export function validateOutboxEvents(events: readonly OutboxEvent[]): OutboxEvent[] {
  if (!Array.isArray(events)) throw new InvalidInputError('Outbox events must be a list.');
  return events.map((event) => {
    const valid =
      event !== null &&
      typeof event === 'object' &&
      typeof event.id === 'string' &&
      EVENT_ID.test(event.id) &&
      isHookEventKind(event.kind) &&
      typeof event.org === 'string' &&
      typeof event.stackId === 'string' &&
      Number.isSafeInteger(event.occurredAt) &&
      event.payload !== null &&
      typeof event.payload === 'object' &&
      !Array.isArray(event.payload);
    if (!valid) throw new InvalidInputError('An outbox event is malformed (id, kind, org, stackId, occurredAt, payload).');
    if (Buffer.byteLength(JSON.stringify(event.payload)) > MAX_PAYLOAD_BYTES) {
      throw new InvalidInputError(`An outbox event payload is over ${MAX_PAYLOAD_BYTES} bytes.`);
    }
    return { id: event.id, kind: event.kind, org: event.org, stackId: event.stackId, occurredAt: event.occurredAt, payload: event.payload };
  });
}
