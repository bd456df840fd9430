export type * from './types.js';
export { createServices, serviceDeps } from './create-services.js';
export type { ServiceDeps, ServiceOptions } from './create-services.js';
export { StackKeys } from './secrets-envelope.js';
