/**
 * Delete steps: which states an update or a destroy deletes (as far as `--target`/`--exclude` allow), deleting them
 * in reverse dependency order, and the deletes of a delete-before-replace, each done once per URN.
 */
import type { ResourceState } from '../state/deployment.js';
import { isProviderType, urnName } from '../resource/urn.js';
import { runDeletes } from './delete-order.js';
import { planDeletes } from './plan-hooks.js';
import { deleteIsProtected, ProtectedDeleteError } from './protection.js';
import { deleteHookArgs } from './resource-hooks.js';
import type { ReplacementPlanner } from './replacement.js';
import type { RunLedger } from './run-ledger.js';
import { ShuttingDownError, type PendingStart, type RunContext } from './step-types.js';
import { untargetedDeleteMessage, type Targeting } from './targeting.js';

/** Chooses and runs the deletes of one run. */
export class DeleteSteps {
  /** Deletes of a delete-before-replace by URN, shared by every replacement that needs the state gone. */
  private readonly replacementDeletes = new Map<string, Promise<ResourceState>>();

  constructor(
    private readonly ctx: RunContext,
    private readonly ledger: RunLedger,
    private readonly targeting: Targeting,
    private readonly planner: ReplacementPlanner,
  ) {}

  /**
   * Resources to delete at the end of an update: replaced ones and those not registered this run, as far as
   * `--target`/`--exclude` allow. A targeted run that would delete something not named by `--target` is refused
   * (unless `--target-dependents`), before anything is deleted.
   */
  candidates(): ResourceState[] {
    const deletable = this.targeting.deletable(this.ctx.options.base.resources);
    return this.allowed([...this.ledger.pendingDeletes, ...this.ledger.live.values()].filter(deletable));
  }

  /** Everything in the base state that `--target`/`--exclude` allow (destroy), taken out of the unclaimed pool. */
  allBase(): ResourceState[] {
    const deletable = this.targeting.deletable(this.ctx.options.base.resources);
    const out = [...this.ledger.pendingDeletes, ...this.ledger.live.values()].filter(deletable);
    for (const r of out) this.ledger.live.delete(r.urn);
    return this.allowed(out);
  }

  /**
   * Everything of a destroy that ran the program (Pulumi's `GenerateDeletes` in destroy mode): the base states no
   * registration claimed and the states the registrations recorded, as far as `--target`/`--exclude` allow.
   */
  allOfRun(): ResourceState[] {
    const deletable = this.targeting.deletable(this.ctx.options.base.resources);
    const claimed = [...this.ledger.registered.values()].filter((r) => !r.delete);
    const out = [...this.ledger.pendingDeletes, ...this.ledger.live.values(), ...claimed].filter(deletable);
    for (const r of out) this.ledger.live.delete(r.urn);
    return this.allowed(out);
  }

  private allowed(candidates: ResourceState[]): ResourceState[] {
    const untargeted = this.targeting.untargetedDeletes(candidates);
    if (untargeted.length === 0) return candidates;
    for (const urn of untargeted) this.ctx.refuse(untargetedDeleteMessage(urn), urn);
    // a preview goes on to show every delete; a real run deletes nothing
    return this.ctx.preview ? candidates : [];
  }

  /**
   * Deletes the given states in reverse dependency order: each waits for every dependent (by dependency, property
   * dependency, parent, provider or deletedWith) to be deleted first; independent deletes run in parallel.
   */
  async deleteAll(states: ResourceState[]): Promise<void> {
    if (!planDeletes(this.ctx, states)) return;
    const base = this.ctx.options.base.resources;
    const order = new Map<ResourceState, number>(base.map((r, i) => [r, i]));
    const position = (s: ResourceState) => order.get(s) ?? order.get(base.find((b) => b.urn === s.urn && b.id === s.id)!) ?? 0;
    const deletingUrns = new Set(states.map((s) => s.urn));
    await runDeletes(states, position, (s) => {
      this.ctx.assertRunning();
      return this.deleteOne(s, s.delete ? 'delete-replaced' : 'delete', deletingUrns);
    });
  }

  /**
   * Deletes a state for a delete-before-replace, once per URN however many replacements need it gone. A
   * dependent deleted this way goes back to the pool marked `pendingReplacement`, so its registration replaces it.
   */
  forReplacement(s: ResourceState, dependent: boolean): Promise<ResourceState> {
    let p = this.replacementDeletes.get(s.urn);
    if (!p) {
      p = this.deleteOne(s, 'delete-replaced', this.planner.deleting, true).then((marked) => {
        if (dependent && !this.ledger.registeredUrns.has(s.urn)) this.ledger.live.set(s.urn, marked);
        return marked;
      });
      this.replacementDeletes.set(s.urn, p);
    }
    return p;
  }

  /**
   * Deletes one resource and returns the state left behind. With `forReplacement` (delete-before-replace) the
   * state stays, marked `pendingReplacement`, until the replacement is recorded, so references to its URN stay
   * valid in between.
   */
  private async deleteOne(s: ResourceState, op: 'delete' | 'delete-replaced', deletingUrns: ReadonlySet<string>, forReplacement = false): Promise<ResourceState> {
    const ctx = this.ctx;
    const urn = s.urn;
    const hookArgs = deleteHookArgs(s);
    try {
      // as Pulumi's DeleteStep: the before hooks run first, even for a protected resource, whose delete is then refused
      const protectedDelete = !forReplacement && deleteIsProtected(s);
      if (!protectedDelete) {
        ctx.assertRunning();
        ctx.emit(op, urn, s.type, 'start', { old: s });
      }
      await ctx.hooks.run('BeforeDelete', s, hookArgs);
      if (protectedDelete) throw new ProtectedDeleteError(urn);
      const callProvider =
        s.custom && !isProviderType(s.type) && !s.external && !s.retainOnDelete && !s.pendingReplacement && !(s.deletedWith && deletingUrns.has(s.deletedWith));
      const marked: ResourceState = { ...s, pendingReplacement: true };
      if (!ctx.preview) {
        if (callProvider) {
          const provider = await ctx.providerByRef(s.provider ?? '');
          const start: PendingStart = { resource: s, type: 'deleting' };
          try {
            await ctx.providerStep(
              () => ctx.hooks.withErrorHooks('delete', s, hookArgs, () => provider.delete({ urn, name: urnName(urn), type: s.type }, s.id ?? '', s.outputs ?? {}, s.inputs ?? {}, s.customTimeouts?.delete)),
              start,
            );
          } finally {
            if (start.begun) ctx.snapshots.endOp(start.begun);
          }
        }
        if (forReplacement) ctx.snapshots.replaceBase(s, marked);
        else ctx.snapshots.remove(s);
        await ctx.save();
      }
      await ctx.hooks.after('AfterDelete', s, hookArgs);
      ctx.emit(op, urn, s.type, 'done', { old: s });
      return forReplacement ? marked : s;
    } catch (err) {
      if (err instanceof ShuttingDownError) throw err;
      ctx.emit(op, urn, s.type, 'failed', { error: err instanceof Error ? err.message : String(err), old: s });
      // as Pulumi: nothing was attempted, so the other deletes go on and every protected resource is reported
      if (err instanceof ProtectedDeleteError) throw ctx.fail(urn, err, { keepGoing: true });
      throw ctx.fail(urn, err);
    }
  }
}
