/**
 * The one integrity check for a deployment's resource list, used by the CLI's engine before every save and by the
 * service on every state it is asked to store. It follows Pulumi's `Snapshot.VerifyIntegrity`
 * (pkg/resource/deploy/snapshot.go): every resource has a URN and a type; a component has no id; a provider
 * reference names an earlier provider resource with exactly that id (unless the resource is pending replacement);
 * parent, dependencies, property dependencies, `deletedWith` and `replaceWith` name earlier resources; and of the
 * resources sharing a URN, all or all but one are marked for deletion.
 *
 * A pure, linear function of the list, so callers can run it on a whole deployment or (to make a check
 * incremental) on whatever slice they need. A reference to a URN listed in an earlier resource's `aliases` counts
 * as resolved: Pulumi normalises such references to the current URN before it verifies.
 */
import { InvalidInputError } from '../errors.js';

/** The fields of a stored or in-memory resource the check reads; anything else is ignored. */
export interface IntegrityResource {
  urn?: unknown;
  type?: unknown;
  id?: unknown;
  custom?: unknown;
  delete?: unknown;
  pendingReplacement?: unknown;
  provider?: unknown;
  parent?: unknown;
  dependencies?: unknown;
  propertyDependencies?: unknown;
  deletedWith?: unknown;
  replaceWith?: unknown;
  aliases?: unknown;
}

/** Which rule a resource breaks; stable names that tests and messages use. */
export type IntegrityRule =
  | 'missing-urn'
  | 'missing-type'
  | 'component-with-id'
  | 'unknown-provider'
  | 'reference-after-resource'
  | 'dangling-reference'
  | 'duplicate-urn';

export interface IntegrityViolation {
  /** 0-based position in the list. */
  index: number;
  /** The offending resource's URN (`''` when it has none). */
  urn: string;
  rule: IntegrityRule;
  /** One sentence naming the resource and what it breaks. */
  message: string;
}

const PROVIDER_TYPE_PREFIX = 'pulumi:providers:';

type Reference = { urn: string; what: string };

/** The first resource that breaks a rule, or `undefined` when the list is sound. */
export function findIntegrityViolation(resources: readonly IntegrityResource[]): IntegrityViolation | undefined {
  const firstIndex = new Map<string, number>();
  resources.forEach((resource, index) => {
    if (typeof resource?.urn === 'string' && !firstIndex.has(resource.urn)) firstIndex.set(resource.urn, index);
  });
  const walk = new IntegrityWalk((urn) => firstIndex.get(urn));
  for (const resource of resources) {
    const violation = walk.add(resource);
    if (violation) return violation;
  }
  return undefined;
}

/** Where the walk remembers URNs (a `Set<string>`, or one that keeps them off the JS heap). */
export interface UrnSet {
  has(urn: string): boolean;
  add(urn: string): void;
}

/**
 * The same check one resource at a time, in list order, holding only what later resources may refer to (URNs seen,
 * providers, URNs live), so a caller that reads resources one by one never needs the whole list at once.
 * `firstIndexOf` tells apart a reference to a resource that comes later in the list from one that is missing; without
 * it every unresolved reference is reported as dangling.
 */
export class IntegrityWalk {
  private readonly seen: UrnSet;
  private readonly providers: UrnSet;
  private readonly live: UrnSet;
  private index = 0;

  constructor(
    private readonly firstIndexOf: (urn: string) => number | undefined = () => undefined,
    newSet: () => UrnSet = () => new Set<string>(),
  ) {
    this.seen = newSet();
    this.providers = newSet();
    this.live = newSet();
  }

  /** Checks the next resource of the list; the violation it is the first to break, if any. */
  add(resource: IntegrityResource): IntegrityViolation | undefined {
    const index = this.index++;
    const { seen, providers, live } = this;
    const fail = (rule: IntegrityRule, message: string): IntegrityViolation => ({
      index,
      urn: typeof resource?.urn === 'string' ? resource.urn : '',
      rule,
      message,
    });
    if (typeof resource?.urn !== 'string' || resource.urn === '') {
      return fail('missing-urn', `resource at index ${index} has no "urn"`);
    }
    const urn = resource.urn;
    if (typeof resource.type !== 'string' || resource.type === '') {
      return fail('missing-type', `resource '${urn}' has no "type"`);
    }
    const id = typeof resource.id === 'string' ? resource.id : '';
    if (resource.custom !== true && id !== '') {
      return fail('component-with-id', `resource '${urn}' is not custom ("custom" is not true) but has id '${id}'`);
    }
    if (resource.type.startsWith(PROVIDER_TYPE_PREFIX)) providers.add(`${urn}::${id}`);

    if (resource.provider !== undefined && resource.provider !== null && resource.provider !== '') {
      if (typeof resource.provider !== 'string' || !isProviderReference(resource.provider)) {
        return fail('unknown-provider', `resource '${urn}' has a provider reference that is not '<provider urn>::<id>'`);
      }
      if (!providers.has(resource.provider) && resource.pendingReplacement !== true) {
        const at = resource.provider.lastIndexOf('::');
        return fail(
          'unknown-provider',
          `resource '${urn}' refers to provider '${resource.provider.slice(0, at)}' (id ` +
            `'${resource.provider.slice(at + 2)}'), which is not a provider resource with that URN and id earlier ` +
            'in the list',
        );
      }
    }

    const references = collectReferences(resource, urn);
    if (typeof references === 'string') return fail('dangling-reference', references);
    for (const reference of references) {
      if (seen.has(reference.urn)) continue;
      const later = this.firstIndexOf(reference.urn);
      if (later !== undefined && later > index) {
        return fail(
          'reference-after-resource',
          `resource '${urn}' refers to ${reference.what} '${reference.urn}', which comes after it (at index ` +
            `${later}); a resource's ${reference.what} must come earlier in the list`,
        );
      }
      return fail('dangling-reference', `resource '${urn}' refers to ${reference.what} '${reference.urn}', which is missing`);
    }

    seen.add(urn);
    if (Array.isArray(resource.aliases)) {
      for (const alias of resource.aliases) if (typeof alias === 'string') seen.add(alias);
    }
    if (resource.delete !== true) {
      if (live.has(urn)) {
        return fail(
          'duplicate-urn',
          `resource '${urn}' appears more than once not marked for deletion; of the resources sharing a URN, all ` +
            'or all but one must be marked "delete"',
        );
      }
      live.add(urn);
    }
    return undefined;
  }
}

/** The URNs a resource depends on, or a message when a field is not a URN or a list of URNs. */
function collectReferences(resource: IntegrityResource, urn: string): Reference[] | string {
  const references: Reference[] = [];
  const single = (value: unknown, what: string): string | undefined => {
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value !== 'string') return `resource '${urn}' has a ${what} that is not a URN`;
    references.push({ urn: value, what });
    return undefined;
  };
  const list = (value: unknown, what: string, field: string): string | undefined => {
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value)) return `resource '${urn}' has "${field}" that is not a list of URNs`;
    for (const item of value) {
      const problem = single(item, what);
      if (problem) return problem;
    }
    return undefined;
  };
  const problem =
    single(resource.parent, 'parent') ??
    list(resource.dependencies, 'dependency', 'dependencies') ??
    propertyDependencies(resource.propertyDependencies, urn, list) ??
    single(resource.deletedWith, 'deletedWith resource') ??
    list(resource.replaceWith, 'replaceWith resource', 'replaceWith');
  return problem ?? references;
}

function propertyDependencies(
  value: unknown,
  urn: string,
  list: (value: unknown, what: string, field: string) => string | undefined,
): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) {
    return `resource '${urn}' has "propertyDependencies" that are not an object of URN lists`;
  }
  for (const [property, urns] of Object.entries(value)) {
    const problem = list(urns, `dependency (of property '${property}')`, `propertyDependencies.${property}`);
    if (problem) return problem;
  }
  return undefined;
}

/** `<provider urn>::<provider id>`: the URN itself contains `::`, the id never does and is not empty. */
function isProviderReference(reference: string): boolean {
  const at = reference.lastIndexOf('::');
  return at > 0 && at + 2 < reference.length;
}

/** Whether a deployment's metadata carries the Pulumi CLI's record of a known integrity error. */
export function declaresIntegrityError(metadata: { integrity_error?: unknown } | undefined): boolean {
  const declared = metadata?.integrity_error;
  return declared !== null && typeof declared === 'object' && typeof (declared as { error?: unknown }).error === 'string';
}

/**
 * The 400 for a deployment that breaks an integrity rule: names the resource, its position and the rule, and says
 * what to do. `what` is the kind of document ("checkpoint", "deployment", …).
 */
export function integrityError(what: string, violation: IntegrityViolation): InvalidInputError {
  return new InvalidInputError(
    `Invalid ${what}: ${violation.message} (resource #${violation.index + 1}, rule ${violation.rule}). Nothing was ` +
      'stored. The state must pass the same integrity check the Pulumi CLI runs (Snapshot.VerifyIntegrity); fix ' +
      "the state, or run 'pulumi state repair'.",
  );
}
