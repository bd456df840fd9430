import type { Storage } from '../../ports/index.js';
import type { ServiceDeps } from '../kernel/deps.js';
import type { ServiceOptions } from '../kernel/options.js';
import { StackKeys } from '../secrets/secrets-envelope.js';

/** What the services share; `createServices` builds all of them on it, a Lambda function only those its routes use. */
export function serviceDeps(storage: Storage, options: ServiceOptions = {}): ServiceDeps {
  const now = options.now ?? Date.now;
  return { storage, now, keys: new StackKeys(storage, { now, cacheMs: options.dataKeyCacheMs }), options };
}
