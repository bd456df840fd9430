/**
 * The resource changes of an update that sent no summary event: a run cancelled with `stackyard cancel` (its token
 * dies before it can send one), killed, or whose last events were lost. They are counted from the step events the
 * service did receive (Pulumi's `resOutputsEvent`, one per finished step), the way the engine counts its summary:
 * by step kind, the two halves of a replacement and default providers left out (Pulumi's `isInternalStep`). `same` is
 * not counted: clients leave unchanged resources
 * out of the events they send (cli/engine/display/engine-events.ts, `serviceEventLog`), so a count would be wrong.
 * Steps whose events never arrived (those finished after the cancel, or in a client's last unsent batch) are missed.
 */
import type { ServiceDeps } from '../kernel/deps.js';

/** Where an update's engine event batches are kept (`<first>-<last>-<count>` under it). */
export function eventsPrefix(updateId: string): string {
  return `updates/${updateId}/events/`;
}

const UNCOUNTED: ReadonlySet<string> = new Set(['same', 'create-replacement', 'delete-replaced']);

/** A default provider's URN (`…::pulumi:providers:<pkg>::default` or `…::default_<version>`). */
function isDefaultProvider(urn: unknown): boolean {
  if (typeof urn !== 'string') return false;
  const parts = urn.split('::');
  const name = parts.at(-1) ?? '';
  return (parts.at(-2) ?? '').startsWith('pulumi:providers:') && (name === 'default' || name.startsWith('default_'));
}

/** Counts the finished steps among `events` by kind. */
export function countFinishedSteps(events: readonly unknown[]): Record<string, number> {
  const changes: Record<string, number> = {};
  for (const event of events) {
    const metadata = (event as { resOutputsEvent?: { metadata?: { op?: unknown; urn?: unknown } } } | null)?.resOutputsEvent?.metadata;
    const op = metadata?.op;
    if (typeof op !== 'string' || UNCOUNTED.has(op) || isDefaultProvider(metadata?.urn)) continue;
    changes[op] = (changes[op] ?? 0) + 1;
  }
  return changes;
}

/** The resource changes the recorded step events of an update show, or `undefined` when it recorded no events. */
export async function recordedChanges(deps: ServiceDeps, stackId: string, updateId: string): Promise<Record<string, number> | undefined> {
  const events = await recordedEvents(deps, stackId, updateId);
  return events === undefined ? undefined : countFinishedSteps(events);
}

/** The engine events an update sent, in batch order, or `undefined` when it recorded none. */
export async function recordedEvents(deps: ServiceDeps, stackId: string, updateId: string): Promise<unknown[] | undefined> {
  const names = await deps.storage.checkpoints.list(stackId, eventsPrefix(updateId));
  if (names.length === 0) return undefined;
  const bodies = await Promise.all(names.map((name) => deps.storage.checkpoints.get({ stackId, name })));
  // a retried batch is written once under its name, so no event is read twice
  return bodies.flatMap((body) => JSON.parse(Buffer.from(body).toString('utf8')) as unknown[]);
}
