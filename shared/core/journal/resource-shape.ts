/**
 * The JSON types of the resource fields the journal replay and its integrity check compute with (URNs and the
 * references between resources). Entries are checked with this as they arrive, so a wrong-typed field is a 400
 * naming it, never a replay that trips over it.
 */

const OPTIONAL_URNS = ['parent', 'provider', 'deletedWith', 'viewOf', 'id'] as const;
const OPTIONAL_URN_LISTS = ['dependencies', 'aliases', 'replaceWith'] as const;
const OPTIONAL_FLAGS = ['custom', 'delete', 'pendingReplacement'] as const;

const absent = (value: unknown): boolean => value === undefined || value === null;
const stringList = (value: unknown): boolean => Array.isArray(value) && value.every((item) => typeof item === 'string');

/**
 * What is wrong with `value` as an `apitype.ResourceV3`, as `"<where>.<field>" must be …` (`where` being its own
 * path, e.g. `entries.0.state`); `undefined` when its URN and reference fields have the types Pulumi writes.
 */
export function resourceShapeProblem(value: unknown, where: string): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return `"${where}" must be a resource object`;
  const resource = value as Record<string, unknown>;
  if (typeof resource.urn !== 'string') return `"${where}.urn" must be a string`;
  if (typeof resource.type !== 'string') return `"${where}.type" must be a string`;
  for (const field of OPTIONAL_URNS) {
    if (!absent(resource[field]) && typeof resource[field] !== 'string') return `"${where}.${field}" must be a string`;
  }
  for (const field of OPTIONAL_URN_LISTS) {
    if (!absent(resource[field]) && !stringList(resource[field])) return `"${where}.${field}" must be a list of strings`;
  }
  for (const field of OPTIONAL_FLAGS) {
    if (!absent(resource[field]) && typeof resource[field] !== 'boolean') return `"${where}.${field}" must be true or false`;
  }
  const byProperty = resource.propertyDependencies;
  if (!absent(byProperty)) {
    if (typeof byProperty !== 'object' || Array.isArray(byProperty)) {
      return `"${where}.propertyDependencies" must be an object of property names to lists of URNs`;
    }
    for (const [name, urns] of Object.entries(byProperty as Record<string, unknown>)) {
      if (!absent(urns) && !stringList(urns)) return `"${where}.propertyDependencies.${name.slice(0, 80)}" must be a list of strings`;
    }
  }
  return undefined;
}

/**
 * What is wrong with the resources of the journal entry at `where` (its `state`, its operation's, and a `write`
 * entry's whole snapshot), as `resourceShapeProblem` says it; `undefined` when nothing is.
 */
export function entryShapeProblem(entry: Record<string, unknown>, where: string): string | undefined {
  if (!absent(entry.state)) {
    const problem = resourceShapeProblem(entry.state, `${where}.state`);
    if (problem) return problem;
  }
  if (!absent(entry.operation)) {
    const problem = operationProblem(entry.operation, `${where}.operation`);
    if (problem) return problem;
  }
  const snapshot = entry.newSnapshot;
  if (absent(snapshot)) return undefined;
  if (typeof snapshot !== 'object' || Array.isArray(snapshot)) return `"${where}.newSnapshot" must be a deployment object`;
  const { resources, pending_operations: pending } = snapshot as Record<string, unknown>;
  return (
    listProblem(resources, `${where}.newSnapshot.resources`, resourceShapeProblem) ??
    listProblem(pending, `${where}.newSnapshot.pending_operations`, operationProblem)
  );
}

function operationProblem(value: unknown, where: string): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return `"${where}" must be an operation object`;
  return resourceShapeProblem((value as { resource?: unknown }).resource, `${where}.resource`);
}

function listProblem(value: unknown, where: string, check: (item: unknown, where: string) => string | undefined): string | undefined {
  if (absent(value)) return undefined;
  if (!Array.isArray(value)) return `"${where}" must be a list`;
  for (const [i, item] of value.entries()) {
    const problem = check(item, `${where}.${i}`);
    if (problem) return problem;
  }
  return undefined;
}
