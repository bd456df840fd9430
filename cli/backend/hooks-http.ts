/** The hooks routes of a service, over HTTP (loaded on first use: see lazy-sub-backend.ts). */
import type { ApiClient } from '../api-client/api-client.js';
import { type DeliveryView } from '../../shared/core/hooks/delivery-view.js';
import type { HookTarget, HookView } from '../../shared/core/hooks/hook-service.js';
import type { HooksBackend } from './hooks-backend.js';

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
