/**
 * `--target`, `--exclude` and `--replace` as Pulumi's engine applies them: URN sets with `*`/`**` globs, the
 * dependents a `--target-dependents`/`--exclude-dependents` run pulls in, and the checks that refuse a run up
 * front (a target that names nothing; a delete of something not targeted).
 */
import type { ResourceState } from '../state/deployment.js';
import { parseProviderRef } from '../resource/urn.js';

/** What the user asked to constrain (names as the `pulumi` flags). */
export interface TargetOptions {
  /** `--target` (and the targets of `--target-replace`): URNs or globs. */
  targets?: readonly string[];
  /** `--target-dependents`: resources depending on a target are targeted too. */
  targetDependents?: boolean;
  /** `--exclude`: URNs or globs. */
  excludes?: readonly string[];
  /** `--exclude-dependents`: resources depending on an excluded one are excluded too. */
  excludeDependents?: boolean;
  /** `--replace` (and `--target-replace`): replaced even without a diff. */
  replaces?: readonly string[];
}

/** A set of URNs given as literals or globs (`*` matches within a `::` segment, `**` across them). */
export class UrnTargets {
  private readonly literals = new Set<string>();
  private readonly globs: RegExp[] = [];

  constructor(patterns: readonly string[] = []) {
    for (const p of patterns) {
      if (p.includes('*')) this.globs.push(globMatcher(p));
      else this.literals.add(p);
    }
  }

  /** False when no pattern was given: the set then contains every URN. */
  get constrained(): boolean {
    return this.literals.size > 0 || this.globs.length > 0;
  }

  /** URNs given literally (only these can be checked for existence). */
  get literalUrns(): string[] {
    return [...this.literals];
  }

  contains(urn: string): boolean {
    if (!this.constrained) return true;
    return this.literals.has(urn) || this.globs.some((g) => g.test(urn));
  }

  /** Adds a URN found to belong (a dependent), when the set is constrained. */
  add(urn: string): void {
    if (this.constrained) this.literals.add(urn);
  }
}

function globMatcher(glob: string): RegExp {
  const quote = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  const segments = glob.split('**').map((seg) => seg.split('*').map(quote).join('[^:]*'));
  return new RegExp(`^${segments.join('.*')}$`);
}

/** Everything a resource depends on: parent, dependencies, property dependencies, deletedWith (not its provider). */
export function dependencyUrns(r: Pick<ResourceState, 'parent' | 'dependencies' | 'propertyDependencies' | 'deletedWith'>): string[] {
  const out = new Set<string>(r.dependencies ?? []);
  for (const deps of Object.values(r.propertyDependencies ?? {})) for (const d of deps) out.add(d);
  if (r.parent) out.add(r.parent);
  if (r.deletedWith) out.add(r.deletedWith);
  return [...out];
}

/** The URNs a resource needs to exist: its dependencies plus its provider. */
export function requiredUrns(r: ResourceState): string[] {
  const out = dependencyUrns(r);
  if (r.provider) out.push(parseProviderRef(r.provider).urn);
  return out;
}

/** The states of `all` that depend on one of `roots` (dependency, parent, provider or deletedWith), transitively. */
export function transitiveDependents(all: readonly ResourceState[], roots: ReadonlySet<string>): Set<string> {
  const found = new Set<string>(roots);
  let grew = true;
  while (grew) {
    grew = false;
    for (const r of all) {
      if (found.has(r.urn)) continue;
      if (requiredUrns(r).some((u) => found.has(u))) {
        found.add(r.urn);
        grew = true;
      }
    }
  }
  for (const r of roots) found.delete(r);
  return found;
}

/** The states of `all` that one of `roots` depends on, transitively. */
export function transitiveDependencies(all: readonly ResourceState[], roots: ReadonlySet<string>): Set<string> {
  const byUrn = new Map(all.map((r) => [r.urn, r]));
  const found = new Set<string>();
  const queue = [...roots];
  while (queue.length) {
    const r = byUrn.get(queue.pop()!);
    if (!r) continue;
    for (const u of requiredUrns(r)) {
      if (found.has(u)) continue;
      found.add(u);
      queue.push(u);
    }
  }
  for (const r of roots) found.delete(r);
  return found;
}

/** Raised before any step runs when the constraints cannot be honoured; names what to change. */
export class TargetError extends Error {
  override readonly name = 'TargetError';
}

/** Pulumi's diagnostic for a target that names nothing (2010/2011). */
export function unknownTargetMessage(urn: string): string {
  const hint = urn.includes('$') ? '' : ' Did you forget to escape $ in your shell?';
  return `Target '${urn}' could not be found in the stack.${hint}`;
}

/**
 * Which resources a run may create, change or delete, and the bookkeeping that lets dependents follow their
 * targets (`--target-dependents`) or exclusions (`--exclude-dependents`) in registration order.
 */
export class Targeting {
  readonly targets: UrnTargets;
  readonly excludes: UrnTargets;
  readonly replaces: UrnTargets;
  /** Targets plus the dependents found so far (`--target-dependents`). */
  private readonly targetsActual: UrnTargets;
  private readonly excludesActual: UrnTargets;

  constructor(readonly options: TargetOptions = {}) {
    this.targets = new UrnTargets(options.targets);
    this.excludes = new UrnTargets(options.excludes);
    this.replaces = new UrnTargets(options.replaces);
    this.targetsActual = new UrnTargets(options.targets);
    this.excludesActual = new UrnTargets(options.excludes);
  }

  /** True when `--target` or `--exclude` narrows the run. */
  get constrained(): boolean {
    return this.targets.constrained || this.excludes.constrained;
  }

  /** `--replace` names this resource. */
  isReplaceTarget(urn: string): boolean {
    return this.replaces.constrained && this.replaces.contains(urn);
  }

  private targetedForUpdate(r: ResourceState): boolean {
    if (this.targets.contains(r.urn)) return true;
    if (!this.options.targetDependents) return false;
    return requiredUrns(r).some((u) => this.targetsActual.contains(u));
  }

  private excludedFromUpdate(r: ResourceState): boolean {
    if (this.excludes.constrained && this.excludes.contains(r.urn)) return true;
    if (!this.options.excludeDependents) return false;
    return requiredUrns(r).some((u) => this.excludesActual.contains(u));
  }

  /**
   * Whether a registered resource takes part in the run; providers and the stack always do. Call once per
   * registration, in registration order: it records dependents for the ones that follow.
   */
  includes(r: ResourceState, implicit: boolean): boolean {
    if (implicit) return true;
    let included = true;
    if (this.targets.constrained) included = this.targetedForUpdate(r);
    else if (this.excludes.constrained) included = !this.excludedFromUpdate(r);
    if (this.excludes.constrained && !included) this.excludesActual.add(r.urn);
    else if (this.targets.constrained && included) this.targetsActual.add(r.urn);
    return included;
  }

  /** Literal targets (`--target`, `--exclude`, `--replace`) that name no resource of the stack or the run. */
  unknownTargets(known: (urn: string) => boolean): string[] {
    const literals = [...this.targets.literalUrns, ...this.excludes.literalUrns, ...this.replaces.literalUrns];
    return [...new Set(literals)].filter((u) => !known(u));
  }

  /**
   * Which base states may be deleted. With targets: the targets and everything depending on them; with excludes:
   * everything but the excluded, what they depend on and (with `--exclude-dependents`) their dependents.
   */
  deletable(base: readonly ResourceState[]): (r: ResourceState) => boolean {
    if (this.targets.constrained) {
      const roots = new Set(base.filter((r) => this.targets.contains(r.urn)).map((r) => r.urn));
      const allowed = new Set([...roots, ...transitiveDependents(base, roots)]);
      return (r) => allowed.has(r.urn);
    }
    if (this.excludes.constrained) {
      const roots = new Set(base.filter((r) => this.excludes.contains(r.urn)).map((r) => r.urn));
      const kept = new Set([...roots, ...transitiveDependencies(base, roots)]);
      if (this.options.excludeDependents) for (const u of transitiveDependents(base, roots)) kept.add(u);
      return (r) => !kept.has(r.urn);
    }
    return () => true;
  }

  /** Which base states a refresh reads back: the targets (and with `--target-dependents` their dependents), or all but the excluded. */
  refreshable(base: readonly ResourceState[]): (r: ResourceState) => boolean {
    const closure = (set: UrnTargets, dependents: boolean | undefined) => {
      const roots = new Set(base.filter((r) => set.contains(r.urn)).map((r) => r.urn));
      return dependents ? new Set([...roots, ...transitiveDependents(base, roots)]) : roots;
    };
    if (this.targets.constrained) {
      const chosen = closure(this.targets, this.options.targetDependents);
      return (r) => chosen.has(r.urn);
    }
    if (this.excludes.constrained) {
      const skipped = closure(this.excludes, this.options.excludeDependents);
      return (r) => !skipped.has(r.urn);
    }
    return () => true;
  }

  /** Deletes a targeted run would make of resources not named by `--target` (refused without `--target-dependents`). */
  untargetedDeletes(deletes: readonly ResourceState[]): string[] {
    if (!this.targets.constrained || this.options.targetDependents) return [];
    return [...new Set(deletes.filter((r) => !this.targets.contains(r.urn)).map((r) => r.urn))];
  }
}

/** Pulumi's diagnostic 2014. */
export function untargetedDeleteMessage(urn: string): string {
  return `Resource '${urn}' will be destroyed but was not specified in --target list.\nEither include resource in --target list or pass --target-dependents to proceed.`;
}

/** Pulumi's diagnostic 2013. */
export function untargetedDependencyMessage(urn: string, dependency: string): string {
  return `Resource '${urn}' depends on '${dependency}' which was was not specified in --target list.`;
}

/**
 * `destroy --exclude-protected`: every protected resource and everything it depends on, as exclusions (Pulumi's
 * `getProtectedExcludes`).
 */
export function protectedExcludes(base: readonly ResourceState[]): string[] {
  const roots = new Set(base.filter((r) => r.protect && !r.delete).map((r) => r.urn));
  return [...new Set([...roots, ...transitiveDependencies(base, roots)])];
}
