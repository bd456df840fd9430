/** The shape of a diff between two versions of a stack: the API's and `stack diff --json`'s body (docs/api.md). */
import type { Principal } from '../kernel/principal.js';
import type { StackRef } from '../names.js';

/** A resource that is in one version and not the other (or was replaced): its URN, type and id. */
export interface ResourceRef {
  urn: string;
  type: string;
  id?: string;
}

/** A resource kept under its URN with a different id: the provider replaced it. */
export interface ReplacedResource extends ResourceRef {
  oldId?: string;
  /** The property changes that came with the replacement (empty when only the id changed). */
  diffs: PropertyChange[];
}

/**
 * One changed value. `path` is the property's path from the resource: `["inputs", "tags", "env"]`,
 * `["outputs", "arn"]`, or a resource field (`["protect"]`, `["parent"]`, `["dependencies"]`). Objects are compared
 * key by key; an array, or a value whose kind changed, is one change. `old` is absent for `add`, `new` for `delete`.
 */
export interface PropertyChange {
  path: string[];
  kind: 'add' | 'delete' | 'update';
  old?: unknown;
  new?: unknown;
}

/** A resource kept under its URN and id whose inputs, outputs or fields changed. */
export interface UpdatedResource {
  urn: string;
  type: string;
  diffs: PropertyChange[];
}

/** What changed from version `from` to version `to`; unchanged resources are not listed. */
export interface StateDiff {
  from: number;
  to: number;
  added: ResourceRef[];
  removed: ResourceRef[];
  replaced: ReplacedResource[];
  updated: UpdatedResource[];
}

/** `stack diff`'s use case, on the service and the local backend alike. */
export interface StateDiffService {
  /**
   * The changes from version `from` (default: the one before `to`) to `to` (default: the latest). Either order is
   * allowed: `from > to` is the reverse diff. Secret values are `"[secret]"` unless `showSecrets`, which needs the
   * `decrypt` permission (403 otherwise). An unknown version is a 404 that says which versions exist.
   */
  diffVersions(principal: Principal, ref: StackRef, versions: { from?: number; to?: number }, options?: { showSecrets?: boolean }): Promise<StateDiff>;
}
