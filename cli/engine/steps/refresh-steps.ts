/**
 * Refresh steps: each custom resource of the base state is read back from its provider; a resource that is gone
 * leaves the state, a changed one is updated in place. Pending operations left by an interrupted run are resolved
 * first: an interrupted update, delete or read by reading the resource back like any other; an interrupted create
 * has no id to read, so it is cleared with a warning naming the resource to check by hand (Pulumi's
 * `--clear-pending-creates`).
 */
import type { PendingOperationType, ResourceState } from '../state/deployment.js';
import type { StepOp } from '../display/events.js';
import type { Provider } from '../plugins/providers/provider-registry.js';
import { changedKeys, markSecretOutputs, type PropertyMap } from '../resource/properties.js';
import { ShuttingDownError, type StepContext } from './step-types.js';
import { isProviderType, urnName } from '../resource/urn.js';

const OP_NOUN: Record<PendingOperationType, string> = { creating: 'create', updating: 'update', deleting: 'delete', reading: 'read' };

/** Reads back every custom resource of `states` that `refreshable` allows; failures are reported through `ctx.fail`. */
export async function refreshStates(ctx: StepContext, states: readonly ResourceState[], refreshable: (r: ResourceState) => boolean): Promise<void> {
  await Promise.all(
    states.map(async (s) => {
      if (!s.custom || isProviderType(s.type) || s.delete || !refreshable(s)) return;
      try {
        const provider = await ctx.providerByRef(s.provider ?? '');
        await refreshResource(ctx, s, provider, (read) => {
          if (!read.changed) return s;
          const refreshed: ResourceState = { ...s, id: read.id, inputs: read.inputs, outputs: read.outputs };
          if (!ctx.preview) ctx.snapshots.replaceBase(s, refreshed);
          return refreshed;
        });
      } catch (err) {
        if (err instanceof ShuttingDownError) return;
        throw ctx.fail(s.urn, err);
      }
    }),
  ).catch(() => undefined);
}

/** What reading a resource back found: its id, inputs and outputs now, and the output keys that changed. */
export interface ReadBack {
  id: string;
  inputs: PropertyMap;
  outputs: PropertyMap;
  /** The id or an output differs from the state's. */
  changed: boolean;
  changedKeys: string[];
}

/**
 * Reads `s` back through `provider` (Pulumi's `RefreshStep`). A resource that is gone leaves the snapshot, shown as a
 * delete, and the result is undefined; otherwise `settle` records the refreshed state (and returns it), shown as an
 * update when the id or an output changed, else as a same.
 */
export async function refreshResource(ctx: StepContext, s: ResourceState, provider: Provider, settle: (read: ReadBack) => ResourceState): Promise<ResourceState | undefined> {
  const urn = s.urn;
  const res = await ctx.providerStep(() => provider.read({ urn, name: urnName(urn), type: s.type }, s.id ?? '', s.outputs ?? {}, s.inputs ?? {}));
  if (!res) {
    ctx.emit('delete', urn, s.type, 'start', { old: s });
    if (!ctx.preview) ctx.snapshots.removeBase(s);
    ctx.emit('delete', urn, s.type, 'done', { old: s });
    return undefined;
  }
  const outputs = markSecretOutputs(res.outputs, s.additionalSecretOutputs ?? []);
  const keys = changedKeys(s.outputs ?? {}, outputs);
  const changed = keys.length > 0 || res.id !== s.id;
  const op: StepOp = changed ? 'update' : 'same';
  const refreshed = settle({ id: res.id, inputs: res.inputs ?? s.inputs ?? {}, outputs, changed, changedKeys: keys });
  ctx.emit(op, urn, s.type, 'start', { diffKeys: keys, old: s, new: refreshed });
  ctx.emit(op, urn, s.type, 'done', { diffKeys: keys, old: s, new: refreshed });
  return refreshed;
}

/** Reports how each pending operation of the base state is resolved and, unless previewing, drops them. */
export function resolveBasePending(ctx: StepContext, base: readonly ResourceState[]): void {
  const pending = ctx.snapshots.basePending();
  if (pending.length === 0) return;
  const recorded = new Set(base.filter((r) => r.custom && !r.delete).map((r) => r.urn));
  const will = ctx.preview ? 'will be' : 'was';
  for (const op of pending) {
    const urn = op.resource.urn;
    if (op.type !== 'creating' && recorded.has(urn)) {
      ctx.events.diag?.({ severity: 'info', urn, message: `an interrupted ${OP_NOUN[op.type]} of ${urn} is resolved by reading the resource back from its provider` });
      continue;
    }
    const why = op.type === 'creating' ? 'it has no id to read back' : 'the resource is not in the stack state';
    ctx.events.diag?.({
      severity: 'warning',
      urn,
      message:
        `the interrupted ${OP_NOUN[op.type]} of ${urn} (${op.resource.type}) ${will} cleared because ${why}; ` +
        'check by hand whether the resource exists in the cloud, and import it if it does',
    });
  }
  if (!ctx.preview) ctx.snapshots.clearBasePending();
}
