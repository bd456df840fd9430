/**
 * Replacement planning for delete-before-replace, as Pulumi's `calculateDependentReplacements`: before a resource is
 * deleted to be replaced, every not-yet-registered resource whose inputs depend on it, and whose provider says a
 * change there forces a replacement, must go first (transitively). Plans run one at a time and claim what they
 * condemn, so two replacements sharing a dependent delete it once and both wait for that delete. It also keeps the
 * run's replacement bookkeeping that `deletedWith` needs: what is replaced, and what is deleted for a replacement.
 */
import type { ResourceState } from '../state/deployment.js';
import { applyIgnoreChanges } from './ignore-changes.js';
import { withUnknownKeys } from '../resource/properties.js';
import type { Provider } from '../plugins/providers/provider-registry.js';
import { normalizeDiff, replaceKeysOf } from './step-generator.js';
import { isProviderType, parseProviderRef, urnName } from '../resource/urn.js';

/** Asks a dependent's provider whether unknown values in `keys` force its replacement. */
export type ReplaceCheck = (dependent: ResourceState, keys: string[]) => Promise<boolean>;

/** The inputs of `r` with every key depending on one of `urns` made unknown (what a diff must assume). */
export function inputsAssumingReplaced(r: ResourceState, urns: ReadonlySet<string>): { keys: string[]; inputs: ResourceState['inputs'] } {
  const keys = Object.entries(r.propertyDependencies ?? {})
    .filter(([, deps]) => deps.some((d) => urns.has(d)))
    .map(([k]) => k);
  return { keys, inputs: withUnknownKeys(r.inputs ?? {}, keys) };
}

/**
 * The check of Pulumi's `calculateDependentReplacements`: the dependent's provider diffs its inputs with the keys
 * made unknown, an unknown answer is worked out from the inputs (ignoreChanges applied), and the dependent's own
 * `replaceOnChanges` applies. `slot` runs the provider call under the run's parallelism bound.
 */
export function providerReplaceCheck(providerOf: (ref: string) => Promise<Provider>, slot: <T>(call: () => Promise<T>) => Promise<T>): ReplaceCheck {
  return async (d, keys) => {
    const provider = await providerOf(d.provider ?? '');
    const olds = d.inputs ?? {};
    const news = withUnknownKeys(olds, keys);
    const diff = await slot(() => provider.diff({ urn: d.urn, name: urnName(d.urn), type: d.type }, d.id ?? '', d.outputs ?? {}, olds, news, d.ignoreChanges ?? []));
    const compared = applyIgnoreChanges(olds, news, d.ignoreChanges ?? []).inputs;
    return replaceKeysOf(normalizeDiff(diff, olds, compared), d.replaceOnChanges ?? [], olds, compared).length > 0;
  };
}

/** Plans the dependent deletes of delete-before-replace steps for one run. */
export class ReplacementPlanner {
  private queue: Promise<unknown> = Promise.resolve();
  /** Dependents already condemned by an earlier plan of this run, by URN. */
  private readonly condemned = new Map<string, ResourceState>();
  /** URNs replaced this run: what is deleted with one of them is replaced too (Pulumi's `sg.replaces`). */
  readonly replaced = new Set<string>();
  /**
   * URNs deleted by a delete-before-replace this run, roots and condemned dependents (Pulumi's `sg.deletes`): a
   * resource deleted with one of them needs no Delete call of its own.
   */
  readonly deleting = new Set<string>();

  /**
   * `candidates` returns the old states not registered yet this run (checked at plan time); `claim` removes a
   * condemned state from them.
   */
  constructor(
    private readonly candidates: () => Iterable<ResourceState>,
    private readonly claim: (r: ResourceState) => void,
    private readonly requiresReplacement: ReplaceCheck,
  ) {}

  /**
   * The dependents that must be deleted before `root`, in dependency order (delete them in reverse), and whether
   * each was condemned by this plan (`own`) or by an earlier one (wait for that delete instead of deleting again).
   */
  plan(root: ResourceState): Promise<{ state: ResourceState; own: boolean }[]> {
    const next = this.queue.then(() => this.planNow(root));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async planNow(root: ResourceState): Promise<{ state: ResourceState; own: boolean }[]> {
    const replaceSet = new Set<string>([root.urn]);
    const found: { state: ResourceState; own: boolean }[] = [];
    const pool = [...this.candidates(), ...this.condemned.values()];
    let grew = true;
    while (grew) {
      grew = false;
      for (const r of pool) {
        if (replaceSet.has(r.urn) || !r.custom || r.external || r.pendingReplacement) continue;
        if (!(await this.mustReplace(r, replaceSet))) continue;
        replaceSet.add(r.urn);
        found.push({ state: r, own: !this.condemned.has(r.urn) });
        grew = true;
      }
    }
    for (const urn of replaceSet) this.deleting.add(urn);
    for (const f of found) {
      if (!f.own) continue;
      this.condemned.set(f.state.urn, f.state);
      this.claim(f.state);
    }
    return found;
  }

  private async mustReplace(r: ResourceState, replaceSet: ReadonlySet<string>): Promise<boolean> {
    if (this.condemned.has(r.urn)) return [...replaceSet].some((u) => dependsOn(r, u));
    if (r.provider && replaceSet.has(parseProviderRef(r.provider).urn)) return true;
    if (r.deletedWith && replaceSet.has(r.deletedWith)) return true;
    if (isProviderType(r.type)) return false;
    const { keys } = inputsAssumingReplaced(r, replaceSet);
    if (keys.length === 0) return false;
    return this.requiresReplacement(r, keys);
  }
}

function dependsOn(r: ResourceState, urn: string): boolean {
  return Object.values(r.propertyDependencies ?? {}).some((deps) => deps.includes(urn)) || r.deletedWith === urn || (!!r.provider && parseProviderRef(r.provider).urn === urn);
}
