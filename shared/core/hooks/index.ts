export { createHookService, type AddHookRequest, type HookService, type HookTarget, type HookView } from './hook-service.js';
export { backoffDelay, dispatchPending, type DispatchOptions, type DispatchSummary } from './dispatcher.js';
export { runGates } from './gates.js';
export { HOOK_EVENT_KINDS } from './outbox-events.js';
export { hookRuntime, MAX_GATE_TIMEOUT_MS } from './runtime.js';
export { type HookRuntimeOptions } from '../kernel/options.js';
export { HEADER_ID, HEADER_KIND, HEADER_SIGNATURE, signBody, verifySignature } from './signing.js';
export { stackEvent, updateEvent, type UpdateEventCause } from './payloads.js';
export { ForbiddenDestinationError, isForbiddenAddress, resolveAllowedTarget } from './ssrf.js';
