/** The composition root as the edges (functions/, cli/) use it: `createServices`, `serviceDeps` and the service types. */
export type * from './types.js';
export { createServices } from './create-services.js';
export { serviceDeps } from './service-deps.js';
export type { ServiceDeps } from '../kernel/deps.js';
export type { ServiceOptions } from '../kernel/options.js';
export { StackKeys } from '../secrets/secrets-envelope.js';
