import { isIP } from 'node:net';
import { ConflictError, InvalidInputError, NotFoundError } from '../errors.js';
import { validateStackRef, type StackRef } from '../names.js';
import type { DeliveryRecord, HookDestination, HookEventKind, HookFormat, HookRecord, HookScope, NewDelivery } from '../../ports/hook-store.js';
import { audited } from '../audit/audit.js';
import { loadStack, requireOrgAction } from '../kernel/authorization.js';
import type { ServiceDeps } from '../kernel/deps.js';
import type { Principal } from '../kernel/principal.js';
import { attemptClaimed, attemptDelivery } from './dispatcher.js';
import { type RetryPolicy } from '../kernel/options.js';
import { HOOK_EVENT_KINDS, isHookEventKind, newEventId } from './outbox-events.js';
import { pingPayload } from './payloads.js';
import { sealHookSecret } from './hook-secrets.js';
import { validateHookFormat } from './formats.js';
import { hookRuntime, type HookRuntime } from './runtime.js';
import { isForbiddenAddress } from './ssrf.js';

/** Which hooks a call is about: an organization's own, or one stack's. */
export type HookTarget = { org: string } | { stack: StackRef };

export interface AddHookRequest {
  name: string;
  /** Exactly one of `url` and `lambdaArn`. */
  url?: string;
  secret?: string;
  lambdaArn?: string;
  events?: string[];
  active?: boolean;
  gate?: boolean;
  failOpen?: boolean;
  /** `raw` (default), `slack` or `ms_teams`: how deliveries to `url` are written. */
  format?: string;
}

/** A hook as shown to users: never its secret, only whether it has one. */
export interface HookView {
  name: string;
  org: string;
  /** `org/project/stack` for stack hooks (current name). */
  stack?: string;
  events: HookEventKind[];
  destination: { kind: 'https'; url: string; hasSecret: boolean; format?: HookFormat } | { kind: 'lambda'; arn: string };
  active: boolean;
  gate: boolean;
  failOpen: boolean;
  createdBy: string;
  createdAt: number;
}

export interface HookService {
  add(principal: Principal, target: HookTarget, request: AddHookRequest): Promise<HookView>;
  list(principal: Principal, target: HookTarget): Promise<HookView[]>;
  remove(principal: Principal, target: HookTarget, name: string): Promise<void>;
  /** Sends a `ping` now (one attempt) and returns its delivery record. */
  ping(principal: Principal, target: HookTarget, name: string): Promise<DeliveryRecord>;
  deliveries(principal: Principal, target: HookTarget, name: string, limit?: number): Promise<DeliveryRecord[]>;
  /** Queues a new delivery of the same payload, attempts it once now, and returns it (retries follow as usual). */
  redeliver(principal: Principal, target: HookTarget, name: string, deliveryId: string): Promise<DeliveryRecord>;
}

const HOOK_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const DELIVERY_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
const LAMBDA_ARN = /^arn:aws[a-z-]*:lambda:[a-z]{2}(?:-[a-z]+)+-\d:\d{12}:function:[A-Za-z0-9_-]{1,64}(?::[A-Za-z0-9_$-]{1,128})?$/;
const MAX_URL_LENGTH = 2048;
const DEFAULT_DELIVERY_PAGE = 50;
const MAX_DELIVERY_PAGE = 200;
/** How long a ping or redelivery holds its own delivery: as long as a dispatcher's claim, well past one attempt. */
const ATTEMPT_NOW_CLAIM_MS = 120_000;

export function validateHookName(name: unknown): string {
  if (typeof name !== 'string' || !HOOK_NAME.test(name)) {
    throw new InvalidInputError(
      `Invalid hook name '${String(name).slice(0, 80)}': use 1 to 64 letters, digits, '.', '_' or '-', starting ` +
        `with a letter or digit.`,
    );
  }
  return name;
}

/** Checks what can be checked without the network; addresses are checked again, resolved, at every delivery. */
export function validateHookUrl(url: unknown, allowPrivate: boolean): string {
  if (typeof url !== 'string' || url.length === 0 || url.length > MAX_URL_LENGTH) {
    throw new InvalidInputError(`Give the hook URL as https://host/path (at most ${MAX_URL_LENGTH} characters).`);
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidInputError(`'${url.slice(0, 80)}' is not a URL: give it as https://host/path.`);
  }
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && allowPrivate)) {
    throw new InvalidInputError('Hook URLs must use https:// (http:// is only allowed with STACKYARD_HOOKS_ALLOW_PRIVATE=true).');
  }
  if (parsed.username || parsed.password) {
    throw new InvalidInputError('Hook URLs may not carry credentials: use --secret to have deliveries signed instead.');
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const internalName = host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.internal');
  if (!allowPrivate && (internalName || (isIP(host) !== 0 && isForbiddenAddress(host)))) {
    throw new InvalidInputError(
      `Hook URL host '${host}' is a private, loopback or link-local address: hooks may only call public addresses.`,
    );
  }
  return url;
}

export function validateLambdaArn(arn: unknown, allowed: readonly string[] | undefined): string {
  if (typeof arn !== 'string' || !LAMBDA_ARN.test(arn)) {
    throw new InvalidInputError(
      `Invalid Lambda function ARN '${String(arn).slice(0, 140)}': expected ` +
        `arn:aws:lambda:<region>:<account>:function:<name>[:<alias or version>].`,
    );
  }
  if (allowed && !allowed.includes(arn) && !allowed.includes(arn.replace(/:[^:]+$/, ''))) {
    throw new InvalidInputError(
      `Lambda function ${arn} is not on this Stackyard's list of hook functions: ask the operator to add it ` +
        `(context value hookFunctionArns) and redeploy.`,
    );
  }
  return arn;
}

export function validateEvents(events: unknown): HookEventKind[] {
  if (events === undefined) return [];
  if (!Array.isArray(events)) throw new InvalidInputError('Hook events must be a list of event names.');
  for (const event of events) {
    if (!isHookEventKind(event)) {
      throw new InvalidInputError(`Unknown hook event '${String(event).slice(0, 60)}': use one of ${HOOK_EVENT_KINDS.join(', ')}.`);
    }
  }
  return [...new Set(events as HookEventKind[])];
}

function view(hook: HookRecord, stackName?: string): HookView {
  const destination: HookView['destination'] =
    hook.destination.kind === 'https'
      ? { kind: 'https', url: hook.destination.url, hasSecret: Boolean(hook.destination.sealedSecret), ...(hook.destination.format ? { format: hook.destination.format } : {}) }
      : { kind: 'lambda', arn: hook.destination.arn };
  return {
    name: hook.name,
    org: hook.org,
    ...(stackName !== undefined ? { stack: stackName } : {}),
    events: hook.events,
    destination,
    active: hook.active,
    gate: hook.gate,
    failOpen: hook.failOpen,
    createdBy: hook.createdBy,
    createdAt: hook.createdAt,
  };
}

export function createHookService(deps: ServiceDeps, runtime: HookRuntime = hookRuntime({ ...deps.options.hooks, keys: deps.storage.keys }), policy: RetryPolicy = deps.options.hooks ?? {}): HookService {
  const { hooks } = deps.storage;

  /** The hook scope of a target, after the same authorization as the other services (members only). */
  async function scopeOf(
    principal: Principal,
    target: HookTarget,
    access: 'read' | 'manage',
  ): Promise<{ scope: HookScope; stackName?: string; ref?: StackRef }> {
    if (target && 'stack' in target) {
      const stack = await loadStack(deps, principal, validateStackRef(target.stack), access === 'read' ? 'read-hooks' : 'manage-hooks');
      return { scope: { org: stack.org, stackId: stack.id }, stackName: `${stack.org}/${stack.project}/${stack.stack}`, ref: stack };
    }
    requireOrgAction(principal, target?.org, access === 'read' ? 'read-hooks' : 'manage-hooks');
    return { scope: { org: target.org } };
  }

  async function hookOf(scope: HookScope, name: string): Promise<HookRecord> {
    try {
      return await hooks.get(scope, validateHookName(name));
    } catch (error) {
      if (error instanceof NotFoundError) {
        throw new NotFoundError(`Hook '${name}' not found: run 'stackyard hook ls' to see the hooks here.`);
      }
      throw error;
    }
  }

  /**
   * Creates a delivery claimed by this request and attempts it at once, so the background dispatcher cannot take it
   * first and leave the caller with an unattempted record.
   */
  async function deliverNow(delivery: NewDelivery, single: boolean): Promise<DeliveryRecord> {
    const retryPolicy = single ? { ...policy, maxAttempts: 1 } : policy;
    const { delivery: stored, created } = await hooks.createDelivery({ ...delivery, claimedUntil: deps.now() + ATTEMPT_NOW_CLAIM_MS });
    const done = created
      ? await attemptClaimed(hooks, runtime, stored, retryPolicy, deps.now)
      : await attemptDelivery(hooks, runtime, stored, retryPolicy, deps.now, ATTEMPT_NOW_CLAIM_MS);
    return done ?? hooks.getDelivery(stored);
  }

  return {
    async add(principal, target, request) {
      const { scope, stackName } = await scopeOf(principal, target, 'manage');
      if (!request || typeof request !== 'object') throw new InvalidInputError('Give the hook name and destination.');
      const name = validateHookName(request.name);
      const hasUrl = request.url !== undefined;
      if (hasUrl === (request.lambdaArn !== undefined)) {
        throw new InvalidInputError('Give exactly one destination: --url URL [--secret S] or --lambda ARN.');
      }
      let destination: HookDestination;
      if (hasUrl) {
        const secret = request.secret;
        if (secret !== undefined && (typeof secret !== 'string' || secret.length < 8 || secret.length > 256)) {
          throw new InvalidInputError('The signing secret must be 8 to 256 characters.');
        }
        const url = validateHookUrl(request.url, runtime.allowPrivate);
        const format = validateHookFormat(request.format);
        if (format !== 'raw' && request.gate === true) throw new InvalidInputError('A gate answers Stackyard\'s JSON: --format applies to event hooks only.');
        destination = {
          kind: 'https',
          url,
          ...(secret ? { sealedSecret: await sealHookSecret(deps.storage.keys, scope, name, secret) } : {}),
          ...(format !== 'raw' ? { format } : {}),
        };
      } else {
        if (request.secret !== undefined) throw new InvalidInputError('--secret only applies to --url hooks.');
        if (request.format !== undefined && request.format !== 'raw') throw new InvalidInputError('--format only applies to --url hooks.');
        destination = { kind: 'lambda', arn: validateLambdaArn(request.lambdaArn, runtime.allowedLambdaArns) };
      }
      const gate = request.gate === true;
      if (request.failOpen === true && !gate) throw new InvalidInputError('--fail-open only applies to gates (--gate).');
      const hook: HookRecord = {
        ...scope,
        name,
        events: validateEvents(request.events),
        destination,
        active: request.active !== false,
        gate,
        failOpen: request.failOpen === true,
        createdBy: principal.login,
        createdAt: deps.now(),
      };
      const where = stackName ?? `organization ${scope.org}`;
      await audited(deps, principal, { org: scope.org, event: 'hook.created', target: `hook ${name}`, description: `added hook ${name} on ${where}` }, () =>
        hooks.create(hook)).catch((error: unknown) => {
        if (!(error instanceof ConflictError)) throw error;
        throw new ConflictError(
          `Hook '${name}' already exists here: remove it first with 'stackyard hook rm ${name}', or pick another name.`,
          { hook: name },
          { cause: error },
        );
      });
      return view(hook, stackName);
    },

    async list(principal, target) {
      const { scope, stackName } = await scopeOf(principal, target, 'read');
      const all = scope.stackId === undefined ? await hooks.listByOrg(scope.org) : await hooks.listForStack(scope.org, scope.stackId);
      const own = scope.stackId === undefined ? all.filter((hook) => hook.stackId === undefined) : all;
      return own.map((hook) => view(hook, hook.stackId !== undefined ? stackName : undefined));
    },

    async remove(principal, target, name) {
      const { scope, stackName } = await scopeOf(principal, target, 'manage');
      await hookOf(scope, name);
      const where = stackName ?? `organization ${scope.org}`;
      await audited(deps, principal, { org: scope.org, event: 'hook.deleted', target: `hook ${name}`, description: `removed hook ${name} from ${where}` }, () =>
        hooks.delete(scope, name),
      );
    },

    async ping(principal, target, name) {
      const { scope, ref, stackName } = await scopeOf(principal, target, 'manage');
      const hook = await hookOf(scope, name);
      const now = deps.now();
      const id = newEventId(now);
      const where = stackName ?? `organization ${scope.org}`;
      const spec = { org: scope.org, event: 'hook.pinged', target: `hook ${hook.name}`, description: `pinged hook ${hook.name} of ${where}` } as const;
      return audited(deps, principal, spec, () =>
        deliverNow(
          {
            ...scope,
            hook: hook.name,
            id,
            eventId: id,
            kind: 'ping',
            payload: pingPayload(ref ?? { org: scope.org }, principal.login, hook.name),
            createdAt: now,
          },
          true,
        ),
      );
    },

    async deliveries(principal, target, name, limit = DEFAULT_DELIVERY_PAGE) {
      const { scope } = await scopeOf(principal, target, 'read');
      await hookOf(scope, name);
      if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_DELIVERY_PAGE) {
        throw new InvalidInputError(`The number of deliveries must be 1 to ${MAX_DELIVERY_PAGE}.`);
      }
      return hooks.listDeliveries(scope, name, limit);
    },

    async redeliver(principal, target, name, deliveryId) {
      const { scope, stackName } = await scopeOf(principal, target, 'manage');
      const hook = await hookOf(scope, name);
      const notFound = () =>
        new NotFoundError(`Delivery '${String(deliveryId).slice(0, 140)}' of hook '${name}' not found: see 'stackyard hook deliveries ${name}'.`);
      if (typeof deliveryId !== 'string' || !DELIVERY_ID.test(deliveryId)) throw notFound();
      const original = await hooks.getDelivery({ ...scope, hook: hook.name, id: deliveryId }).catch((error: unknown) => {
        if (error instanceof NotFoundError) throw notFound();
        throw error;
      });
      const now = deps.now();
      const where = stackName ?? `organization ${scope.org}`;
      const spec = {
        org: scope.org,
        event: 'hook.redelivered',
        target: `hook ${hook.name}`,
        description: `redelivered ${original.kind} delivery ${original.id} of hook ${hook.name} of ${where}`,
      } as const;
      return audited(deps, principal, spec, () =>
        deliverNow(
          {
            ...scope,
            hook: hook.name,
            id: newEventId(now),
            eventId: original.eventId,
            kind: original.kind,
            payload: original.payload,
            createdAt: now,
            redeliveryOf: original.id,
          },
          false,
        ),
      );
    },
  };
}
