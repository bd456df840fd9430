import { type DeliveryView } from '../../shared/core/hooks/delivery-view.js';
import type { AddHookRequest, HookTarget, HookView } from '../../shared/core/hooks/hook-service.js';

/** Hooks of an organization (`{org}`) or of one stack (`{stack}`); docs/hooks.md. Never returns a signing secret. */
export interface HooksBackend {
  add(target: HookTarget, request: AddHookRequest): Promise<HookView>;
  /** A stack's listing includes its organization's hooks (they see the stack too). */
  list(target: HookTarget): Promise<HookView[]>;
  remove(target: HookTarget, name: string): Promise<void>;
  /** Sends a ping now (one attempt) and returns its delivery. */
  ping(target: HookTarget, name: string): Promise<DeliveryView>;
  /** Newest first. */
  deliveries(target: HookTarget, name: string, limit?: number): Promise<DeliveryView[]>;
  /** A new delivery of the same payload, attempted once now (retries follow as usual). */
  redeliver(target: HookTarget, name: string, deliveryId: string): Promise<DeliveryView>;
}
