/** The hooks calls of `login --local`, in-process (loaded on first use: see lazy-sub-backend.ts). */
import type { Principal } from '../../shared/core/kernel/principal.js';
import { deliveryView } from '../../shared/core/hooks/delivery-view.js';
import type { LocalServices } from './local-services.js';
import type { HooksBackend } from './hooks-backend.js';

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
