import type { EnvironmentRef } from '../../shared/core/names.js';
import type { CloneRequest, DefinitionView } from '../../shared/core/environments/types.js';
import type { Diagnostic, EscEnvironment } from '../../shared/esc/index.js';

/** One environment as listed. */
export interface EnvironmentListing {
  org: string;
  project: string;
  name: string;
}

/** A revision as ESC's API shows it (EnvironmentRevision; times as RFC 3339). */
export interface EnvironmentRevision {
  number: number;
  created: string;
  creatorLogin: string;
  creatorName: string;
  tags: string[];
}

/** A revision tag as ESC's API shows it (EnvironmentRevisionTag). */
export interface EnvironmentRevisionTag {
  name: string;
  revision: number;
  created: string;
  modified: string;
  editorLogin: string;
  editorName: string;
}

/** A checked or opened environment, or the diagnostics that kept it from being one (errors: no environment). */
export interface CheckedEnvironment {
  environment?: EscEnvironment;
  diagnostics: Diagnostic[];
}

/**
 * ESC environments on a backend: the same core use cases on the service (over ESC's REST routes, as the `esc` CLI
 * calls them) and in process (`login --local`). A definition or environment with errors comes back as diagnostics,
 * as ESC's client returns them, not as an error.
 */
export interface EnvironmentsBackend {
  /** Opens a version of an environment (`undefined`: the latest) and returns its values, secrets revealed and marked. */
  open(ref: EnvironmentRef, version: string | undefined): Promise<EscEnvironment>;
  /** Opens a version for `lifetimeMs` (the service's default when absent); an environment with errors gives its diagnostics. */
  openChecked(ref: EnvironmentRef, version: string | undefined, lifetimeMs?: number): Promise<CheckedEnvironment>;
  /** Every environment the caller may read, in `org` or in all of its organizations. */
  list(org: string | undefined): Promise<EnvironmentListing[]>;
  create(ref: EnvironmentRef): Promise<void>;
  /** The definition (secrets as ciphertext, or in plaintext with `decrypt`) with its revision and etag. */
  getDefinition(ref: EnvironmentRef, version: string | undefined, decrypt: boolean): Promise<DefinitionView>;
  /** Saves a new revision (only if none was saved since `etag` was read, when given); errors: not saved. */
  update(ref: EnvironmentRef, yaml: string, etag?: string): Promise<Diagnostic[]>;
  delete(ref: EnvironmentRef): Promise<void>;
  /** Checks a stored version (`undefined`: the latest), secrets in plaintext with `showSecrets`. */
  check(ref: EnvironmentRef, version: string | undefined, showSecrets: boolean): Promise<CheckedEnvironment>;
  /** Checks a definition that is not stored, its imports in `org`. */
  checkYaml(org: string, yaml: string, showSecrets: boolean): Promise<CheckedEnvironment>;
  clone(ref: EnvironmentRef, request: CloneRequest): Promise<void>;
  /** Newest first, revisions numbered below `before` (all when absent). */
  listRevisions(ref: EnvironmentRef, before?: number, count?: number): Promise<EnvironmentRevision[]>;
  listRevisionTags(ref: EnvironmentRef): Promise<EnvironmentRevisionTag[]>;
  getRevisionTag(ref: EnvironmentRef, name: string): Promise<EnvironmentRevisionTag>;
  createRevisionTag(ref: EnvironmentRef, name: string, revision: number): Promise<void>;
  updateRevisionTag(ref: EnvironmentRef, name: string, revision: number): Promise<void>;
  deleteRevisionTag(ref: EnvironmentRef, name: string): Promise<void>;
}
