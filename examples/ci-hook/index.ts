/**
 * A Stackyard hook function (README.md next to this file): posts stack and update events to a chat or CI webhook,
 * and, registered with `--gate`, refuses updates of frozen stacks. No dependencies beyond Node.js 20+.
 *
 * Configuration (environment):
 * - SLACK_WEBHOOK_URL  a Slack incoming webhook (or anything taking `{"text": "..."}`)
 * - WEBHOOK_URL        a generic receiver (a CI trigger, a chat bridge): gets `{text, id, kind, event, stack, ...}`
 * - WEBHOOK_TIMEOUT_MS per webhook call (default 5000)
 * - FROZEN_STACKS      gate policy: comma-separated `org/project/stack` patterns, `*` within one part
 * - FREEZE_REASON      appended to the gate's deny message
 */

/** What Stackyard's Lambda destinations receive. */
export interface HookInvocation {
  /** The delivery id (`Pulumi-Webhook-ID`); a retry repeats it, so receivers can drop duplicates. */
  id: string;
  /** `stack`, `stack_update`, `ping`, or `update_gate` for gate calls. */
  kind: string;
  payload: HookPayload;
}

/** The fields used here; Stackyard sends Pulumi Cloud's webhook payload (docs/hooks.md). */
export interface HookPayload {
  event?: string;
  user?: { name?: string };
  organization?: { name?: string };
  projectName?: string;
  stackName?: string;
  updateUrl?: string;
  kind?: string;
  result?: string;
  resourceChanges?: Record<string, number>;
  action?: string;
  message?: string;
}

/** What a gate answers. */
export interface GateAnswer {
  allow: boolean;
  message: string;
}

export async function handler(invocation: HookInvocation): Promise<GateAnswer | { posted: number }> {
  const env = process.env;
  if (invocation.kind === 'update_gate') return decideGate(invocation.payload, env);
  const targets = webhookTargets(invocation, env);
  if (targets.length === 0) throw new Error('Nothing to post to: set SLACK_WEBHOOK_URL or WEBHOOK_URL.');
  const timeoutMs = Number(env.WEBHOOK_TIMEOUT_MS) || 5_000;
  // Throwing on a refused post makes Lambda retry the (asynchronous) invocation by its own retry settings.
  await Promise.all(targets.map((target) => post(target, timeoutMs)));
  return { posted: targets.length };
}

/** `org/project/stack` of a payload. */
export function stackOf(payload: HookPayload): string {
  return [payload.organization?.name, payload.projectName, payload.stackName].filter(Boolean).join('/');
}

/** One line for humans: what happened to which stack, who did it, and where to look. */
export function summarize(invocation: HookInvocation): string {
  const { payload } = invocation;
  const stack = stackOf(payload);
  const who = payload.user?.name ? ` by ${payload.user.name}` : '';
  if (invocation.kind === 'ping') return payload.message ?? `Ping from Stackyard for ${stack}.`;
  if (invocation.kind === 'stack') return `${stack}: stack ${payload.action ?? payload.event ?? 'changed'}${who}`;
  const what = payload.kind ?? 'update';
  const result = payload.result === 'in-progress' ? 'started' : (payload.result ?? payload.event ?? 'changed');
  const changes = Object.entries(payload.resourceChanges ?? {})
    .filter(([op, count]) => op !== 'same' && count > 0)
    .map(([op, count]) => `${op} ${count}`)
    .join(', ');
  return [
    `${stack}: ${what} ${result}${who}`,
    changes ? ` (${changes})` : '',
    payload.message ? ` "${payload.message}"` : '',
    payload.updateUrl ? ` ${payload.updateUrl}` : '',
  ].join('');
}

/** The gate policy: a stack matching a FROZEN_STACKS pattern may not be updated. */
export function decideGate(payload: HookPayload, env: NodeJS.ProcessEnv): GateAnswer {
  const stack = stackOf(payload);
  const frozenBy = (env.FROZEN_STACKS ?? '')
    .split(',')
    .map((pattern) => pattern.trim())
    .find((pattern) => pattern.length > 0 && globToRegExp(pattern).test(stack));
  if (!frozenBy) return { allow: true, message: `${stack} is not frozen` };
  const reason = env.FREEZE_REASON ? `: ${env.FREEZE_REASON}` : '';
  return { allow: false, message: `${stack} is frozen (${frozenBy})${reason}` };
}

function globToRegExp(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*');
  return new RegExp(`^${escaped}$`);
}

interface Target {
  url: string;
  body: Record<string, unknown>;
}

function webhookTargets(invocation: HookInvocation, env: NodeJS.ProcessEnv): Target[] {
  const text = summarize(invocation);
  const { payload } = invocation;
  const targets: Target[] = [];
  if (env.SLACK_WEBHOOK_URL) targets.push({ url: env.SLACK_WEBHOOK_URL, body: { text } });
  if (env.WEBHOOK_URL) {
    targets.push({
      url: env.WEBHOOK_URL,
      body: {
        text,
        id: invocation.id,
        kind: invocation.kind,
        event: payload.event,
        stack: stackOf(payload),
        result: payload.result,
        updateUrl: payload.updateUrl,
      },
    });
  }
  return targets;
}

async function post(target: Target, timeoutMs: number): Promise<void> {
  const response = await fetch(target.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(target.body),
    redirect: 'error',
    signal: AbortSignal.timeout(timeoutMs),
  });
  // The URL stays out of the error: a Slack webhook's path is its credential, and errors end up in logs.
  if (!response.ok) throw new Error(`The webhook answered ${response.status}.`);
}
