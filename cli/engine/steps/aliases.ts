/**
 * Alias resolution as Pulumi's step generator does it: a resource's own aliases (specs or URNs), multiplied out
 * with the alias its parent was actually matched through, so renaming a component keeps its children.
 */
import type { AliasSpec, RegisterGoal } from './step-types.js';
import { createUrn, STACK_TYPE, urnName } from '../resource/urn.js';

/** The qualified type of a URN (`parent$child` types included). */
function qualifiedType(urn: string): string {
  return urn.split('::')[2] ?? '';
}

/** Resolves aliases for one run, remembering which old URN each resource was found under. */
export class AliasResolver {
  /** New URN → the old URN it was matched through (only when that differs). */
  private readonly matched = new Map<string, string>();
  /** Old URN → the new URN that took it over (Pulumi's `sg.aliased`). */
  private readonly claimedBy = new Map<string, string>();

  constructor(private readonly stack: string, private readonly project: string) {}

  /** Records that `urn` took over the state of `oldUrn`. */
  recordMatch(urn: string, oldUrn: string): void {
    if (urn === oldUrn) return;
    this.matched.set(urn, oldUrn);
    this.claimedBy.set(oldUrn, urn);
  }

  /** The old URN `urn` was matched through, if it took over another URN's state. */
  oldUrnOf(urn: string): string | undefined {
    return this.matched.get(urn);
  }

  /** The URN that took over the state of `oldUrn` by alias this run, if any. */
  newUrnOf(oldUrn: string): string | undefined {
    return this.claimedBy.get(oldUrn);
  }

  /** Candidate old URNs of a registration, in Pulumi's order (own aliases, then inherited ones). */
  aliasesOf(goal: RegisterGoal, urn: string): string[] {
    const out = new Set<string>();
    const own = [...goal.aliasUrns, ...goal.aliasSpecs.map((a) => this.collapse(goal, a))];
    for (const a of own) out.add(a);
    const parentAlias = goal.parent ? this.matched.get(goal.parent) : undefined;
    if (goal.parent && parentAlias) {
      const parentName = urnName(goal.parent);
      out.add(this.inherited(goal.type, goal.name, parentName, parentAlias));
      for (const a of own) out.add(this.inherited(typeOfUrn(a), urnName(a), parentName, parentAlias));
    }
    out.delete(urn);
    return [...out];
  }

  private collapse(goal: RegisterGoal, a: AliasSpec): string {
    let parent = a.parentUrn || goal.parent;
    if (a.parentUrn) parent = this.matched.get(a.parentUrn) ?? a.parentUrn;
    if (a.noParent || (parent && qualifiedType(parent) === STACK_TYPE)) parent = undefined;
    return createUrn(a.stack || this.stack, a.project || this.project, parent, a.type || goal.type, a.name || goal.name);
  }

  /** A child named `<parent>-x` follows its parent's rename (`<old parent>-x`), under the parent's old URN. */
  private inherited(childType: string, childName: string, parentName: string, parentAlias: string): string {
    const name = childName.startsWith(parentName) ? urnName(parentAlias) + childName.slice(parentName.length) : childName;
    return createUrn(this.stack, this.project, parentAlias, childType, name);
  }
}

/** The resource's own type from a URN (after the last `$`). */
function typeOfUrn(urn: string): string {
  const q = qualifiedType(urn);
  return q.substring(q.lastIndexOf('$') + 1);
}
