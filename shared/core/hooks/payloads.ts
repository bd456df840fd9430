import type { HookEventKind, OutboxEvent } from '../../ports/hook-store.js';
import type { StackRecord } from '../../ports/stack-store.js';
import type { UpdateRecord } from '../../ports/update-store.js';
import { newEventId } from './outbox-events.js';

/**
 * Event payloads with Pulumi Cloud's webhook field names (`user`, `organization`, `projectName`, `stackName`,
 * `updateUrl`, `kind`, `result`, `resourceChanges`, `isPreview`), plus `event` (the event name, Stackyard's
 * addition) and ids receivers can look things up with. Built from records that hold no secret values: the update's
 * config and environment are deliberately left out (config may carry encrypted secrets, environments tokens).
 */
type StackNames = Pick<StackRecord, 'id' | 'org' | 'project' | 'stack'>;

/** The `Pulumi-Webhook-Kind` header: `stack` for stack lifecycle events, `stack_update` for update events. */
export function webhookKind(event: HookEventKind | 'ping'): 'stack' | 'stack_update' | 'drift_detection' | 'ping' {
  if (event === 'ping') return 'ping';
  if (event === 'drift_detected') return 'drift_detection';
  return event === 'stack_created' || event === 'stack_deleted' ? 'stack' : 'stack_update';
}

function common(kind: HookEventKind | 'ping', stack: Pick<StackRecord, 'org' | 'project' | 'stack'>, login: string) {
  return {
    event: kind,
    user: { name: login, githubLogin: login },
    organization: { name: stack.org, githubLogin: stack.org },
    projectName: stack.project,
    stackName: stack.stack,
  };
}

export function stackEvent(
  kind: 'stack_created' | 'stack_deleted',
  stack: StackNames,
  login: string,
  now: number,
): OutboxEvent {
  const payload = { ...common(kind, stack, login), action: kind === 'stack_created' ? 'created' : 'deleted' };
  return { id: newEventId(now), kind, org: stack.org, stackId: stack.id, occurredAt: now, payload };
}

/** Why an update event is raised; `ended` maps the update's kind and status to Pulumi's event names. */
export type UpdateEventCause = 'started' | 'ended' | 'lease-expired';

export function updateEventKind(update: Pick<UpdateRecord, 'kind' | 'dryRun' | 'status'>, cause: UpdateEventCause): HookEventKind {
  if (cause === 'started') return 'update_started';
  if (cause === 'lease-expired') return 'lease_expired';
  if (update.status === 'cancelled') return 'update_cancelled';
  const result = update.status === 'succeeded' ? 'succeeded' : 'failed';
  if (update.dryRun || update.kind === 'preview') return `preview_${result}`;
  if (update.kind === 'destroy') return `destroy_${result}`;
  if (update.kind === 'refresh') return `refresh_${result}`;
  return `update_${result}`;
}

export function updateEvent(
  cause: UpdateEventCause,
  stack: StackNames,
  update: UpdateRecord,
  now: number,
  serviceUrl: string | undefined,
): OutboxEvent {
  const kind = updateEventKind(update, cause);
  const base = (serviceUrl ?? '').replace(/\/+$/, '');
  // The console's page of this update: previews by id (Pulumi's `/previews/<id>`), a running update by id until it
  // has a version, then by version.
  const page = update.dryRun ? `previews/${update.id}` : `updates/${update.version ?? update.id}`;
  const path = `/${stack.org}/${stack.project}/${stack.stack}/${page}`;
  const payload = {
    ...common(kind, stack, update.requestedBy),
    updateUrl: `${base}${path}`,
    kind: update.kind,
    result: cause === 'started' ? 'in-progress' : update.status,
    resourceChanges: update.resourceChanges ?? {},
    isPreview: update.dryRun,
    updateId: update.id,
    version: update.version ?? 0,
    ...(update.message !== undefined ? { message: update.message } : {}),
    // Why the service failed a completion its client called succeeded (the policy check), so a receiver can tell.
    ...(update.endReason === 'policy-bypassed' ? { endReason: update.endReason, endMessage: update.endMessage } : {}),
  };
  return { id: newEventId(now), kind, org: stack.org, stackId: stack.id, occurredAt: now, payload };
}

export function pingPayload(scope: { org: string; project?: string; stack?: string }, login: string, hook: string) {
  return {
    event: 'ping' as const,
    user: { name: login, githubLogin: login },
    organization: { name: scope.org, githubLogin: scope.org },
    ...(scope.project !== undefined ? { projectName: scope.project, stackName: scope.stack } : {}),
    hookName: hook,
    message: `Ping from Stackyard for hook '${hook}'.`,
  };
}

/** What a `drift_detected` event tells: the drift run and the resources that drifted, with their properties. */
export interface DriftEventDetails {
  driftRunId: string;
  resources: { urn: string; type: string; change: string; properties: string[] }[];
}

/**
 * `drift_detected`: raised with the write that ends a preview of a refresh that found drift. `driftUrl` is the
 * console's drift tab of the stack; at most 50 resources are named (`resourceCount` says how many drifted).
 */
export function driftEvent(stack: StackNames, update: UpdateRecord, details: DriftEventDetails, now: number, serviceUrl: string | undefined): OutboxEvent {
  const base = (serviceUrl ?? '').replace(/\/+$/, '');
  const payload = {
    ...common('drift_detected', stack, update.requestedBy),
    driftUrl: `${base}/${stack.org}/${stack.project}/${stack.stack}/drift`,
    driftRunId: details.driftRunId,
    updateId: update.id,
    resourceCount: details.resources.length,
    resources: details.resources.slice(0, 50),
  };
  return { id: newEventId(now), kind: 'drift_detected', org: stack.org, stackId: stack.id, occurredAt: now, payload };
}
