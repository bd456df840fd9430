/**
 * `hook add|ls|rm|ping|deliveries|redeliver`: webhooks, Lambda destinations and update gates (docs/hooks.md). The
 * scope is `--org <org>` (every stack of the organization) or `--stack <name>`; without either, the selected stack.
 */
import { formatStackRef } from '../../shared/core/names.js';
import type { DeliveryView, HookTarget, HookView } from '../backend/backend.js';
import { UserError } from '../output/errors.js';
import type { CommandContext } from './context.js';
import { formatTime, relativeTime, table } from './format.js';
import type { CommandHandler } from './types.js';

/** Keeps the signing secret out of shell history and process listings. */
const SECRET_VARIABLE = 'STACKYARD_HOOK_SECRET';

interface Scope {
  target: HookTarget;
  /** `organization 'acme'` or `stack 'acme/web/prod'`, for messages. */
  label: string;
}

async function scopeOf(ctx: CommandContext, opts: Record<string, unknown>): Promise<Scope> {
  const org = opts.org as string | undefined;
  const stack = opts.stack as string | undefined;
  if (org !== undefined && stack !== undefined) {
    throw new UserError(
      'give --org or --stack, not both',
      'An organization hook (--org) sees every stack of the organization; a stack hook (--stack) only that stack.',
    );
  }
  if (org !== undefined) return { target: { org }, label: `organization '${org}'` };
  if (stack === undefined && !(await ctx.project())) {
    throw new UserError(
      'which hooks? there is no selected stack here',
      'Pass --org <org> for an organization\'s hooks or --stack <org/project/stack> for a stack\'s, or run inside a project with a selected stack.',
    );
  }
  const { ref } = await ctx.resolveStack(stack);
  return { target: { stack: ref }, label: `stack '${formatStackRef(ref)}'` };
}

function eventList(text: unknown): string[] | undefined {
  if (typeof text !== 'string') return undefined;
  const events = text
    .split(',')
    .map((event) => event.trim())
    .filter((event) => event !== '');
  return events.length > 0 ? events : undefined;
}

function describeDestination(hook: HookView): string {
  if (hook.destination.kind === 'lambda') return hook.destination.arn;
  return `${hook.destination.url}${hook.destination.hasSecret ? ' (signed)' : ''}`;
}

function describeGate(hook: HookView): string {
  if (!hook.gate) return 'no';
  return hook.failOpen ? 'fail-open' : 'fail-closed';
}

/** `200 in 12 ms`, or why the attempt failed. */
function describeAttempt(delivery: DeliveryView): string {
  const last = delivery.attempts.at(-1);
  if (!last) return delivery.status === 'pending' ? 'not attempted yet' : '';
  const code = last.responseCode !== undefined ? `${last.responseCode} ` : '';
  return last.ok ? `${code}in ${last.latencyMs} ms` : `${code}${last.error ?? 'failed'}`.trim();
}

export const hookAdd: CommandHandler = async (ctx, args, opts) => {
  const name = args[0]!;
  const url = opts.url as string | undefined;
  const lambdaArn = opts.lambda as string | undefined;
  if ((url === undefined) === (lambdaArn === undefined)) {
    throw new UserError('give exactly one destination', 'Use --url https://… [--secret S] or --lambda arn:aws:lambda:…');
  }
  const secret = url !== undefined ? ((opts.secret as string | undefined) ?? (ctx.env[SECRET_VARIABLE] || undefined)) : (opts.secret as string | undefined);
  const scope = await scopeOf(ctx, opts);
  const hook = await (await ctx.backend()).hooks().add(scope.target, {
    name,
    ...(url !== undefined ? { url } : { lambdaArn }),
    ...(secret !== undefined ? { secret } : {}),
    ...(eventList(opts.events) ? { events: eventList(opts.events) } : {}),
    ...(opts.gate === true ? { gate: true } : {}),
    ...(opts.failOpen === true ? { failOpen: true } : {}),
    ...(typeof opts.format === 'string' ? { format: opts.format } : {}),
  });
  const events = hook.events.length > 0 ? hook.events.join(', ') : 'all';
  const role = hook.gate ? `gate (${describeGate(hook)}) before every update` : `events: ${events}`;
  ctx.out(`Added hook '${hook.name}' to ${scope.label}: ${describeDestination(hook)}, ${role}`);
};

export const hookLs: CommandHandler = async (ctx, _args, opts) => {
  const scope = await scopeOf(ctx, opts);
  const hooks = await (await ctx.backend()).hooks().list(scope.target);
  if (opts.json === true) return ctx.json(hooks);
  if (hooks.length === 0) {
    ctx.out(`No hooks see ${scope.label}; add one with \`stackyard hook add\``);
    return;
  }
  ctx.out(
    table(
      ['NAME', 'SCOPE', 'DESTINATION', 'EVENTS', 'GATE', 'ACTIVE'],
      hooks.map((hook) => [
        hook.name,
        hook.stack ?? hook.org,
        describeDestination(hook),
        hook.gate ? '-' : hook.events.length > 0 ? hook.events.join(',') : 'all',
        describeGate(hook),
        hook.active ? 'yes' : 'no',
      ]),
    ),
  );
};

export const hookRm: CommandHandler = async (ctx, args, opts) => {
  const scope = await scopeOf(ctx, opts);
  await (await ctx.backend()).hooks().remove(scope.target, args[0]!);
  ctx.out(`Removed hook '${args[0]}' from ${scope.label}`);
};

export const hookPing: CommandHandler = async (ctx, args, opts) => {
  const scope = await scopeOf(ctx, opts);
  const delivery = await (await ctx.backend()).hooks().ping(scope.target, args[0]!);
  if (delivery.status !== 'succeeded') {
    throw new UserError(
      `the ping of hook '${args[0]}' failed: ${describeAttempt(delivery)}`,
      `Check the receiver, then ping again; delivery ${delivery.id} is in \`stackyard hook deliveries ${args[0]}\`.`,
    );
  }
  ctx.out(`Pinged hook '${args[0]}': ${describeAttempt(delivery)} (delivery ${delivery.id})`);
};

export const hookDeliveries: CommandHandler = async (ctx, args, opts) => {
  const scope = await scopeOf(ctx, opts);
  const deliveries = await (await ctx.backend()).hooks().deliveries(scope.target, args[0]!, opts.limit as number | undefined);
  if (opts.json === true) return ctx.json(deliveries);
  if (deliveries.length === 0) {
    ctx.out(`Hook '${args[0]}' has no deliveries yet; send one with \`stackyard hook ping ${args[0]}\``);
    return;
  }
  ctx.out(
    table(
      ['ID', 'EVENT', 'STATUS', 'ATTEMPTS', 'LAST ATTEMPT', 'CREATED'],
      deliveries.map((delivery) => [
        delivery.id,
        delivery.event,
        delivery.status === 'dead' ? 'dead (no more retries)' : delivery.status,
        String(delivery.attempts.length),
        describeAttempt(delivery),
        relativeTime(delivery.createdAt),
      ]),
    ),
  );
};

export const hookRedeliver: CommandHandler = async (ctx, args, opts) => {
  const scope = await scopeOf(ctx, opts);
  const delivery = await (await ctx.backend()).hooks().redeliver(scope.target, args[0]!, args[1]!);
  const outcome = describeAttempt(delivery);
  if (delivery.status === 'succeeded') {
    ctx.out(`Redelivered ${args[1]} as ${delivery.id}: ${outcome}`);
  } else if (delivery.status === 'pending') {
    ctx.out(
      `Redelivered ${args[1]} as ${delivery.id}: the first attempt failed (${outcome}); ` +
        `it is retried from ${formatTime(delivery.nextAttemptAt ?? Date.now())}`,
    );
  } else {
    throw new UserError(
      `the redelivery ${delivery.id} of ${args[1]} failed: ${outcome}`,
      `Check the receiver, then run \`stackyard hook redeliver ${args[0]} ${args[1]}\` again.`,
    );
  }
};
