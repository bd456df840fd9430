import type { Storage } from '../../ports/index.js';
import type { ServiceDeps, ServiceOptions } from './create-services.js';
import { StackKeys } from './secrets-envelope.js';

/** What every service is built from: storage, the clock and the stack data keys, one set shared by all services. */
export function createServiceDeps(storage: Storage, options: ServiceOptions = {}): ServiceDeps {
  const now = options.now ?? Date.now;
  return { storage, now, keys: new StackKeys(storage, { now, cacheMs: options.dataKeyCacheMs }), options };
}
