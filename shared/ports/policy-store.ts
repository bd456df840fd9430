/** Where a pack version is in its publish: created and waiting for its tarball, or complete and usable. */
export type PolicyPackVersionStatus = 'pending' | 'published';

/** One version of an organization's policy pack, as `POST /api/orgs/{org}/policypacks` described it. */
export interface PolicyPackVersionRecord {
  org: string;
  /** The pack's URL-safe name, unique in the organization. */
  name: string;
  /** The pack's own version (its package.json version): unique per pack, never republished. */
  versionTag: string;
  /** 1, 2, 3… per pack in the order versions were created (Pulumi's integer `version`). */
  version: number;
  displayName: string;
  /** The policies as Pulumi's `apitype.Policy` JSON (name, enforcementLevel, configSchema…), checked by the core. */
  policies: Record<string, unknown>[];
  /** The other fields of the create request (description, readme, provider, tags, repository, runtime, metadata). */
  details: Record<string, unknown>;
  status: PolicyPackVersionStatus;
  /** SHA-256 (hex) of the one-time upload ticket handed out at create; only a `pending` version has it. */
  uploadTicketHash?: string;
  /** Size and SHA-256 (hex) of the tarball, set by `complete`. */
  size?: number;
  sha256?: string;
  createdAt: number;
  createdBy: string;
  publishedAt?: number;
  /** +1 on every write; the condition of the next. */
  revision: number;
}

/** A pack version a policy group enables, with the configuration its policies get. */
export interface EnabledPolicyPack {
  name: string;
  versionTag: string;
  version: number;
  displayName: string;
  /** Policy name → its configuration (Pulumi's `map[string]*json.RawMessage`). */
  config?: Record<string, unknown>;
}

/** A policy group of an organization: the stacks it holds and the pack versions they must run. */
export interface PolicyGroupRecord {
  org: string;
  name: string;
  isOrgDefault: boolean;
  mode: 'preventative' | 'audit';
  /**
   * Member stacks by id. The default group holds every stack of the organization but those in `excludedStacks`, so a
   * new stack is in it from its first moment without a write.
   */
  stacks: string[];
  excludedStacks: string[];
  packs: EnabledPolicyPack[];
  modifiedAt: number;
  modifiedBy: string;
  /** 1 on create, +1 on every write; the condition of the next. */
  revision: number;
}

/** One violation a policy pack reported in an update (Pulumi's `policyEvent`), as the service keeps it. */
export interface RecordedPolicyViolation {
  policyPack: string;
  policyPackTag: string;
  policyName: string;
  /** `advisory`, `mandatory`, `remediate` or `disabled`, as the event said. */
  level: string;
  /** Absent for a stack policy's violation (`validateStack` names no resource). */
  resourceURN?: string;
  message: string;
}

/**
 * The policy violations of a stack's latest update, recorded when that update completed: what "stacks currently
 * violating a policy" is read from without reading any update's events again.
 */
export interface StackPolicyResultsRecord {
  org: string;
  stackId: string;
  project: string;
  stack: string;
  updateId: string;
  /** The stack version the update made; a record only replaces one of a lower version. */
  version: number;
  /** When the update ended (epoch ms). */
  observedAt: number;
  /** The first of them in the order they were reported (the core bounds how many, so a record stays small). */
  violations: RecordedPolicyViolation[];
  /** How many were reported beyond those kept. */
  omitted: number;
}

/**
 * Policy pack versions and policy groups (items of the Stackyard table in AWS, lock-protected files locally); the
 * tarballs are in `PolicyPackageStore`. Design: docs/policy.md, "Packs on the service".
 *
 * Guarantees:
 * - `createVersion` is create-if-absent by (org, pack, versionTag) and by (org, pack, version number): of two creates
 *   racing for either, one wins and the other gets `ConflictError` having written nothing.
 * - `updateVersion` and `putGroup` apply only at the revision the caller read (`putGroup` with `undefined`: only when
 *   no such group exists); otherwise `ConflictError` and nothing changes.
 * - `deleteVersion` and `deleteGroup` of something missing are no error.
 * - `recordStackResults` keeps one record per stack and replaces it only with one of a higher `version`: a retried
 *   completion, or one arriving after a later update's, changes nothing and is no error.
 */
export interface PolicyStore {
  createVersion(record: PolicyPackVersionRecord): Promise<void>;
  getVersion(org: string, name: string, versionTag: string): Promise<PolicyPackVersionRecord | undefined>;
  /** Every version of every pack of the organization (any status), ordered by pack name then version number. */
  listVersions(org: string): Promise<PolicyPackVersionRecord[]>;
  updateVersion(record: PolicyPackVersionRecord, expectedRevision: number): Promise<void>;
  deleteVersion(org: string, name: string, versionTag: string): Promise<void>;

  getGroup(org: string, name: string): Promise<PolicyGroupRecord | undefined>;
  listGroups(org: string): Promise<PolicyGroupRecord[]>;
  putGroup(record: PolicyGroupRecord, expectedRevision: number | undefined): Promise<void>;
  deleteGroup(org: string, name: string): Promise<void>;

  recordStackResults(record: StackPolicyResultsRecord): Promise<void>;
  /** Every stack's latest results in the organization (any order). */
  listStackResults(org: string): Promise<StackPolicyResultsRecord[]>;
}

/**
 * Pack version tarballs (objects in the state bucket in AWS, files in the data folder locally).
 *
 * Guarantees: a package is stored whole or not at all (a second put of the same version replaces it whole);
 * `getPackage` of a missing one is `undefined`; `deletePackage` of a missing one is no error.
 */
export interface PolicyPackageStore {
  putPackage(org: string, name: string, versionTag: string, tarball: Uint8Array): Promise<void>;
  getPackage(org: string, name: string, versionTag: string): Promise<Uint8Array | undefined>;
  deletePackage(org: string, name: string, versionTag: string): Promise<void>;
  /**
   * Where a client may PUT the tarball itself, valid for `expiresInSeconds`, with the headers to send (a presigned S3
   * PUT in AWS); `undefined` where uploads go through the API (local storage). An upload there is stored as
   * `putPackage` stores it.
   */
  uploadLocation(org: string, name: string, versionTag: string, expiresInSeconds: number): Promise<PackageUploadLocation | undefined>;
}

/** A direct upload target for a pack tarball: the URL to PUT to and the headers the PUT must carry. */
export interface PackageUploadLocation {
  url: string;
  headers: Record<string, string>;
}
