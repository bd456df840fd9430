/**
 * Refresh steps: each custom resource of the base state is read back from its provider; a resource that is gone
 * leaves the state, a changed one is updated in place. Pending operations left by an interrupted run are resolved
 * first: an interrupted update, delete or read by reading the resource back like any other; an interrupted create
 * has no id to read, so it is cleared with a warning naming the resource to check by hand (Pulumi's
 * `--clear-pending-creates`).
 */
import type { PendingOperationType, ResourceState } from '../state/deployment.js';
import type { StepOp } from '../display/events.js';
import { changedKeys, markSecretOutputs } from '../resource/properties.js';
import { ShuttingDownError, type StepContext } from './step-types.js';
import { isProviderType, urnName } from '../resource/urn.js';

const OP_NOUN: Record<PendingOperationType, string> = { creating: 'create', updating: 'update', deleting: 'delete', reading: 'read' };

/** Reads back every custom resource of `states` that `refreshable` allows; failures are reported through `ctx.fail`. */
export async function refreshStates(ctx: StepContext, states: readonly ResourceState[], refreshable: (r: ResourceState) => boolean): Promise<void> {
  await Promise.all(
    states.map(async (s) => {
      if (!s.custom || isProviderType(s.type) || s.delete || !refreshable(s)) return;
      const urn = s.urn;
      try {
        const provider = await ctx.providerByRef(s.provider ?? '');
        const res = await ctx.providerStep(() => provider.read({ urn, name: urnName(urn), type: s.type }, s.id ?? '', s.outputs ?? {}, s.inputs ?? {}));
        if (!res) {
          ctx.emit('delete', urn, s.type, 'start', { old: s });
          if (!ctx.preview) ctx.snapshots.removeBase(s);
          ctx.emit('delete', urn, s.type, 'done', { old: s });
          return;
        }
        const outputs = markSecretOutputs(res.outputs, s.additionalSecretOutputs ?? []);
        const inputs = res.inputs ?? s.inputs ?? {};
        const changed = changedKeys(s.outputs ?? {}, outputs);
        const op: StepOp = changed.length || res.id !== s.id ? 'update' : 'same';
        const refreshed: ResourceState = op === 'update' ? { ...s, id: res.id, inputs, outputs } : s;
        ctx.emit(op, urn, s.type, 'start', { diffKeys: changed, old: s, new: refreshed });
        if (!ctx.preview && op === 'update') ctx.snapshots.replaceBase(s, refreshed);
        ctx.emit(op, urn, s.type, 'done', { diffKeys: changed, old: s, new: refreshed });
      } catch (err) {
        if (err instanceof ShuttingDownError) return;
        throw ctx.fail(urn, err);
      }
    }),
  ).catch(() => undefined);
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
