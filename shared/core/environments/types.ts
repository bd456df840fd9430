import type { Diagnostic, EscEnvironment, EscValue } from '../../esc/index.js';
import type { EnvironmentPermission } from '../kernel/permissions.js';
import type { Principal } from '../kernel/principal.js';
import type { EnvironmentRef } from '../names.js';
import type { KeyStanding } from './issuer/index.js';

/** One environment as listed (ESC's OrgEnvironment, with epoch milliseconds the edge renders). */
export interface EnvironmentSummary extends EnvironmentRef {
  createdAt: number;
  modifiedAt: number;
}

/** One environment as the console lists it: its latest revision, when it was saved and by whom. */
export interface EnvironmentOverview extends EnvironmentSummary {
  revision: number;
  modifiedBy: string;
}

/** Two revisions compared (a unified diff of their definitions, every secret redacted; empty when equal). */
export interface EnvironmentDiff {
  from: number;
  to: number;
  diff: string;
}

/** One audit entry about an environment: who did what (opened, saved, revealed…) to which revision, when. */
export interface EnvironmentActivity {
  id: string;
  /** Epoch milliseconds. */
  time: number;
  event: string;
  user: string;
  revision?: number;
  description: string;
  outcome?: 'unknown';
}

/** A page of an environment's audit entries, newest first. */
export interface EnvironmentActivityPage {
  entries: EnvironmentActivity[];
  continuationToken?: string;
}

/** A definition as read: the YAML (secrets as ciphertext, or in plaintext when decrypted) and its revision. */
export interface DefinitionView {
  yaml: string;
  revision: number;
  /** Opaque; sent back in `ETag`/`If-Match` to update only if nothing was saved meanwhile. */
  etag: string;
}

/** A revision as `esc env version history` shows it (ESC's EnvironmentRevision). */
export interface RevisionView {
  number: number;
  createdAt: number;
  creatorLogin: string;
  /** The revision tags on it, `latest` included on the newest revision. */
  tags: string[];
}

/** A revision tag (ESC's EnvironmentRevisionTag). */
export interface RevisionTagView {
  name: string;
  revision: number;
  createdAt: number;
  modifiedAt: number;
  editorLogin: string;
}

/** What `clone` takes (ESC's CloneEnvironmentRequest). */
export interface CloneRequest {
  project?: string;
  name: string;
  /** The revision to clone (default: the latest). */
  version?: number;
  preserveHistory?: boolean;
  preserveAccess?: boolean;
  preserveRevisionTags?: boolean;
}

/** A grant as listed. */
export interface EnvironmentGrantView {
  subject: 'user' | 'team';
  name: string;
  permission: EnvironmentPermission;
}

/** A version to read: the latest (absent), a revision number, or a revision tag. */
export type EnvironmentVersion = string | undefined;

/**
 * Environments (Pulumi ESC): definitions per organization and project, kept as revisions forever, with revision tags,
 * checking and opening. Secrets in definitions are sealed under each environment's own data key. Reading needs
 * `read`, opening and revealing secrets `open`, saving `write`, deleting and permissions `admin`.
 */
export interface EnvironmentService {
  /** The caller's environments in `org` (every organization of the caller when absent) that it may read. */
  list(principal: Principal, org: string | undefined, continuationToken?: string): Promise<{ environments: EnvironmentSummary[]; nextToken?: string }>;
  create(principal: Principal, ref: EnvironmentRef): Promise<void>;
  clone(principal: Principal, source: EnvironmentRef, request: CloneRequest): Promise<void>;
  /** With `decrypt`, secrets in plaintext (needs `open`, audited as a reveal). */
  getDefinition(principal: Principal, ref: EnvironmentRef, version: EnvironmentVersion, decrypt: boolean): Promise<DefinitionView>;
  /**
   * Saves a new revision. A definition with errors is refused with all its diagnostics (`DiagnosticsError`) and
   * nothing is stored; with `etag`, only if no revision was saved since it was read (`ConflictError` otherwise).
   */
  update(principal: Principal, ref: EnvironmentRef, yaml: string, etag?: string): Promise<{ revision: number; diagnostics: Diagnostic[] }>;
  delete(principal: Principal, ref: EnvironmentRef): Promise<void>;
  /** Checks a stored revision; with `showSecrets`, secrets in plaintext (needs `open`). */
  check(principal: Principal, ref: EnvironmentRef, version: EnvironmentVersion, showSecrets: boolean): Promise<CheckResult>;
  /** Checks a definition that is not stored, in the context of `org` (its imports are `org`'s environments). */
  checkYaml(principal: Principal, org: string, yaml: string, showSecrets: boolean): Promise<CheckResult>;
  /** Evaluates a revision and returns the id of a short-lived session to read it with (`readOpen`). */
  open(principal: Principal, ref: EnvironmentRef, version: EnvironmentVersion, durationMs?: number): Promise<{ id: string }>;
  /** The opened environment, or one property of it (`property`, a Pulumi property path). */
  readOpen(principal: Principal, ref: EnvironmentRef, sessionId: string, property?: string): Promise<EscEnvironment | EscValue>;
  /** Evaluates a caller's own YAML (ESC's `yaml/open`: each import needs `open`) and returns a session id. */
  openYaml(principal: Principal, org: string, yaml: string, durationMs?: number): Promise<{ id: string }>;
  /** The anonymous environment a `yaml/open` session opened, evaluated again for its caller. */
  readYamlOpen(principal: Principal, org: string, sessionId: string): Promise<EscEnvironment>;
  /** Newest first: at most `count` (default 500) revisions numbered below `before`. */
  listRevisions(principal: Principal, ref: EnvironmentRef, options: { before?: number; count?: number }): Promise<RevisionView[]>;
  listRevisionTags(principal: Principal, ref: EnvironmentRef): Promise<RevisionTagView[]>;
  getRevisionTag(principal: Principal, ref: EnvironmentRef, name: string): Promise<RevisionTagView>;
  /** `revision` absent: the latest. */
  createRevisionTag(principal: Principal, ref: EnvironmentRef, name: string, revision?: number): Promise<void>;
  updateRevisionTag(principal: Principal, ref: EnvironmentRef, name: string, revision?: number): Promise<void>;
  deleteRevisionTag(principal: Principal, ref: EnvironmentRef, name: string): Promise<void>;
  listGrants(principal: Principal, ref: EnvironmentRef): Promise<EnvironmentGrantView[]>;
  /** `permission: null` removes the grant. */
  setGrant(principal: Principal, ref: EnvironmentRef, target: { user: string } | { team: string }, permission: EnvironmentPermission | null): Promise<void>;
  /** The console's list: the organization's environments the caller may read, with their latest revision and author. */
  overview(principal: Principal, org: string, continuationToken?: string): Promise<{ environments: EnvironmentOverview[]; nextToken?: string }>;
  /** Two versions' definitions compared, secrets redacted (needs `read`). */
  diff(principal: Principal, ref: EnvironmentRef, from: EnvironmentVersion, to: EnvironmentVersion): Promise<EnvironmentDiff>;
  /** The audit entries about this environment since it was created, newest first (needs `read`). */
  activity(principal: Principal, ref: EnvironmentRef, page: { limit?: number; continuationToken?: string }): Promise<EnvironmentActivityPage>;
  /** The discovery document of the OIDC issuer environments' providers sign with (public: no caller). */
  issuerDiscovery(): Record<string, unknown>;
  /** The issuer's public signing keys (public: no caller); the first call of a new deployment makes the key. */
  issuerKeySet(): Promise<{ keys: object[] }>;
  /** The issuer's keys that may still matter, oldest first, each with its state now (administrators only). */
  issuerKeys(principal: Principal): Promise<KeyStanding[]>;
  /** Makes the issuer's next signing key (administrators only; `ConflictError` while a rotated key waits to sign). */
  rotateIssuerKey(principal: Principal): Promise<KeyStanding[]>;
}

/** A checked environment and its diagnostics (errors refuse nothing here: it is only a check). */
export interface CheckResult {
  environment?: EscEnvironment;
  diagnostics: Diagnostic[];
}
