import type { ApiClient } from '../api-client/api-client.js';
import type { Principal } from '../../shared/core/kernel/principal.js';
import { deliveryView, type DeliveryView } from '../../shared/core/hooks/delivery-view.js';
import type { AddHookRequest, HookTarget, HookView } from '../../shared/core/hooks/hook-service.js';
import type { LocalServices } from './local-services.js';

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

/** `/api/orgs/{org}/hooks` or `/api/stacks/{org}/{project}/{stack}/hooks`, then the hook's name when given. */
function hooksPath(target: HookTarget, name?: string): string {
  const base =
    'stack' in target
      ? `/api/stacks/${target.stack.org}/${target.stack.project}/${target.stack.stack}/hooks`
      : `/api/orgs/${encodeURIComponent(target.org)}/hooks`;
  return name === undefined ? base : `${base}/${encodeURIComponent(name)}`;
}

/** The hook routes of the service. */
export function httpHooksBackend(client: ApiClient): HooksBackend {
  return {
    add(target, request) {
      return client.request<HookView>({ method: 'POST', path: hooksPath(target), body: request, operation: 'add hook' });
    },
    async list(target) {
      const answer = await client.request<{ hooks?: HookView[] }>({ method: 'GET', path: hooksPath(target), operation: 'list hooks' });
      return answer?.hooks ?? [];
    },
    async remove(target, name) {
      await client.request({ method: 'DELETE', path: hooksPath(target, name), operation: 'remove hook' });
    },
    ping(target, name) {
      return client.request<DeliveryView>({ method: 'POST', path: `${hooksPath(target, name)}/ping`, operation: 'ping hook' });
    },
    async deliveries(target, name, limit) {
      const answer = await client.request<{ deliveries?: DeliveryView[] }>({
        method: 'GET',
        path: `${hooksPath(target, name)}/deliveries`,
        query: { limit },
        operation: 'list hook deliveries',
      });
      return answer?.deliveries ?? [];
    },
    redeliver(target, name, deliveryId) {
      return client.request<DeliveryView>({
        method: 'POST',
        path: `${hooksPath(target, name)}/deliveries/${encodeURIComponent(deliveryId)}/redeliver`,
        operation: 'redeliver hook delivery',
      });
    },
  };
}

/** The local backend's in-process hook service. */
export function localHooksBackend(services: Pick<LocalServices, 'hooks'>, principal: Principal): HooksBackend {
  return {
    async add(target, request) {
      return (await services.hooks()).add(principal, target, request);
    },
    async list(target) {
      return (await services.hooks()).list(principal, target);
    },
    async remove(target, name) {
      return (await services.hooks()).remove(principal, target, name);
    },
    async ping(target, name) {
      return deliveryView(await (await services.hooks()).ping(principal, target, name));
    },
    async deliveries(target, name, limit) {
      return (await (await services.hooks()).deliveries(principal, target, name, limit)).map(deliveryView);
    },
    async redeliver(target, name, deliveryId) {
      return deliveryView(await (await services.hooks()).redeliver(principal, target, name, deliveryId));
    },
  };
}
