import type { HookRecord, HookScope } from '../../ports/hook-store.js';
import { renderHookBody } from './formats.js';
import { hookSecretOpener } from './hook-secrets.js';
import { sdkLambdaInvoker } from './lambda.js';
import { HEADER_ID, HEADER_KIND, HEADER_SIGNATURE, signBody } from './signing.js';
import { privateTargetsAllowed } from './ssrf.js';
import { postJson } from './transport.js';
import type { HookRuntimeOptions, LambdaInvoker, SendResult } from '../kernel/options.js';

export const MAX_GATE_TIMEOUT_MS = 10_000;
const DEFAULT_DELIVERY_TIMEOUT_MS = 10_000;

export interface HookRuntime {
  allowPrivate: boolean;
  deliveryTimeoutMs: number;
  gateTimeoutMs: number;
  allowedLambdaArns?: readonly string[];
  lambda: LambdaInvoker;
  openSecret: (scope: HookScope, name: string, sealed: string) => Promise<string>;
}

export function hookRuntime(options: HookRuntimeOptions = {}, env: NodeJS.ProcessEnv = process.env): HookRuntime {
  let lambda: LambdaInvoker | undefined = options.lambda;
  return {
    allowPrivate: privateTargetsAllowed(options, env),
    deliveryTimeoutMs: options.deliveryTimeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS,
    gateTimeoutMs: Math.min(options.gateTimeoutMs ?? MAX_GATE_TIMEOUT_MS, MAX_GATE_TIMEOUT_MS),
    ...(options.allowedLambdaArns ? { allowedLambdaArns: options.allowedLambdaArns } : {}),
    openSecret: hookSecretOpener(options.keys),
    // The SDK client is built on first use, so processes without Lambda hooks never load its configuration.
    get lambda() {
      lambda ??= sdkLambdaInvoker();
      return lambda;
    },
  };
}

export interface Message {
  /** `Pulumi-Webhook-ID`: the delivery id. */
  id: string;
  /** `Pulumi-Webhook-Kind`. */
  kind: string;
  payload: Record<string, unknown>;
}

/**
 * Sends one message to a hook's destination. HTTPS bodies are the payload itself, signed when the hook has a
 * secret; Lambda functions receive `{id, kind, payload}` (the headers' information, no signature: IAM already
 * says who called).
 */
export async function sendToHook(
  runtime: HookRuntime,
  hook: HookRecord,
  message: Message,
  mode: 'async' | 'gate',
): Promise<SendResult> {
  const timeoutMs = mode === 'gate' ? runtime.gateTimeoutMs : runtime.deliveryTimeoutMs;
  if (hook.destination.kind === 'lambda') {
    const body = JSON.stringify({ id: message.id, kind: message.kind, payload: message.payload });
    return runtime.lambda.invoke(hook.destination.arn, body, mode === 'gate' ? 'RequestResponse' : 'Event', timeoutMs);
  }
  const body = renderHookBody(hook.destination.format, message.payload);
  const headers: Record<string, string> = { [HEADER_ID]: message.id, [HEADER_KIND]: message.kind };
  const sealed = hook.destination.sealedSecret;
  if (sealed) headers[HEADER_SIGNATURE] = signBody(await runtime.openSecret(hook, hook.name, sealed), body);
  return postJson(hook.destination.url, body, headers, { timeoutMs, allowPrivate: runtime.allowPrivate });
}
