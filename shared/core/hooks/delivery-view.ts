import type { DeliveryAttempt, DeliveryRecord, DeliveryStatus, HookEventKind } from '../../ports/hook-store.js';

/**
 * A delivery as users see it (`GET …/hooks/{name}/deliveries`, `stackyard hook deliveries --json`), the same from
 * both edges: the record without the dispatcher's bookkeeping (claims, revision). Payloads hold no secret.
 */
export interface DeliveryView {
  id: string;
  hook: string;
  /** The event name, or `ping`. */
  event: HookEventKind | 'ping';
  eventId: string;
  status: DeliveryStatus;
  attempts: DeliveryAttempt[];
  /** Epoch milliseconds. */
  createdAt: number;
  /** Epoch milliseconds; pending deliveries only. */
  nextAttemptAt?: number;
  /** The delivery this one repeats (redeliveries only). */
  redeliveryOf?: string;
  payload: Record<string, unknown>;
}

export function deliveryView(delivery: DeliveryRecord): DeliveryView {
  return {
    id: delivery.id,
    hook: delivery.hook,
    event: delivery.kind,
    eventId: delivery.eventId,
    status: delivery.status,
    attempts: delivery.attempts,
    createdAt: delivery.createdAt,
    ...(delivery.status === 'pending' && delivery.nextAttemptAt !== undefined ? { nextAttemptAt: delivery.nextAttemptAt } : {}),
    ...(delivery.redeliveryOf !== undefined ? { redeliveryOf: delivery.redeliveryOf } : {}),
    payload: delivery.payload,
  };
}
