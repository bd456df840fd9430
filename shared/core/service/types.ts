import type { StackRef } from '../names.js';
import type { UpdateKind, UpdateRecord, UpdateStatus } from '../../ports/update-store.js';
import type { StackRecord } from '../../ports/stack-store.js';
import type { OrgRole, TokenKind, TokenRecord, UserRecord } from '../../ports/identity-store.js';
import type { HookService } from '../hooks/hook-service.js';
import type { ConsoleService } from '../console/types.js';
import type { AccessService } from './access-service.js';
import type { AuditService } from '../audit/audit.js';
import type { OidcService } from '../oidc/oidc-service.js';

/**
 * The use cases shared by the HTTP API (functions/) and the CLI's local backend. They take the caller as a
 * `Principal` and enforce authorization themselves: a stack of an organization the principal does not belong to
 * is reported as not found, so names cannot be probed.
 */
export interface Principal {
  /** The user's login; for team and organization tokens, the token's owner key (`acme.team.ops`, `acme.org`). */
  login: string;
  /** Organizations the user belongs to (always includes the personal organization named after the login). */
  orgs: readonly string[];
  /** Site administrator: manages users and organizations (not other organizations' stacks). */
  admin: boolean;
  /** The caller's role in each organization of `orgs` (team and organization tokens have none). */
  roles: Readonly<Record<string, OrgRole>>;
  /** The token the caller authenticated with (absent for in-process callers such as the local backend). */
  token?: PrincipalToken;
  /** The HTTP request acting, for the audit log (absent in-process). */
  request?: RequestInfo;
}

/** Where a request came from, as the audit log records it. */
export interface RequestInfo {
  id: string;
  sourceIp?: string;
  userAgent?: string;
}

/** Which token a principal acts with; team and organization tokens act with only that team's or organization's rights. */
export interface PrincipalToken {
  id: string;
  kind: TokenKind;
  org?: string;
  team?: string;
  description: string;
  /** The user who created a team or organization token. */
  createdBy?: string;
}

/** `{version, features?, deployment}` as the Pulumi CLI exchanges it (UntypedDeployment). */
export interface UntypedDeployment {
  version: number;
  features?: string[];
  deployment: Record<string, unknown>;
}

export interface StackPageView {
  stacks: StackRecord[];
  /** Absent on the last page, never empty. */
  continuationToken?: string;
}

export interface CreateUpdateRequest {
  kind: Exclude<UpdateKind, 'import' | 'rename'>;
  dryRun: boolean;
  message?: string;
  environment?: Record<string, string>;
  config?: Record<string, unknown>;
}

export interface StartUpdateRequest {
  /** Replaces the stack's tags when present (the Pulumi CLI sends the merged set). */
  tags?: Record<string, string>;
  /** `1` asks for journaling; answered by `negotiateJournalVersion`. */
  journalVersion?: number;
  /** Shorter leases free a crashed run's stack sooner; clamped to [MIN, MAX]; default 300 s. */
  leaseDurationMs?: number;
}

/**
 * A checkpoint as it came over the wire: its decoded bytes, read in chunks as they are inflated (each call of
 * `chunks` starts from the beginning, and throws what decoding the body throws), and, when the client compressed it,
 * those gzip bytes, which are stored as they are once the decoded document checks out, instead of being compressed a
 * second time.
 */
export interface CheckpointUpload {
  chunks(): AsyncIterable<Uint8Array>;
  gzipped?: Uint8Array;
}

export interface UpdateStatusView {
  status: UpdateStatus;
  kind: UpdateKind;
  /** Login of the user who created the update. */
  requestedBy: string;
  /** Epoch milliseconds; absent until started. */
  startedAt?: number;
}

export interface StartedUpdate {
  version: number;
  token: string;
  /** Epoch seconds, as the wire wants it. */
  tokenExpiration: number;
  journalVersion: 0 | 1;
}

export interface Services {
  restore: StackRestoreService;
  identity: IdentityService;
  access: AccessService;
  audit: AuditService;
  oidc: OidcService;
  stacks: StackService;
  updates: UpdateService;
  secrets: SecretService;
  hooks: HookService;
  console: ConsoleService;
}

export interface IdentityService {
  /** Resolves an API token to its principal; `UnauthorizedError` when unknown, revoked or expired. */
  /** `request` (the HTTP request acting) goes into the audit log, for failures too, and onto the principal. */
  authenticate(token: string, request?: RequestInfo): Promise<Principal>;
  /**
   * `authenticate` for a token known by its SHA-256 hex only (a console session opened with it): the same checks, so
   * revoking or expiring the token ends the sessions it opened.
   */
  authenticateHash(tokenHash: string, request?: RequestInfo): Promise<Principal>;
  getUser(principal: Principal): Promise<UserRecord & { orgs: string[] }>;
  /** The organization unqualified stack names default to: the personal organization (named after the login). */
  defaultOrg(principal: Principal): Promise<string>;
  /** Organizations the principal may see (admins: all), with their members. */
  listOrgs(principal: Principal): Promise<{ name: string; role: OrgRole }[]>;
  /** Admin only. Creates the user and its personal organization. */
  createUser(principal: Principal, user: { login: string; name?: string; email?: string; admin?: boolean }): Promise<UserRecord>;
  /** Admin only, or an admin of the organization. */
  createOrg(principal: Principal, name: string): Promise<void>;
  addMember(principal: Principal, org: string, login: string, role: OrgRole): Promise<void>;
  /** Returns the plaintext token once; only its hash is stored. Admins may create tokens for other users. */
  createToken(principal: Principal, request: { login?: string; description: string; expiresInMs?: number }): Promise<{ token: string; record: TokenRecord }>;
  listTokens(principal: Principal, login?: string): Promise<TokenRecord[]>;
  revokeToken(principal: Principal, id: string, login?: string): Promise<void>;
  /** Creates or refreshes an administrator with the given token (serve's STACKYARD_ADMIN_TOKEN, admin bootstrap). */
  ensureAdmin(login: string, token: string): Promise<void>;
}

export interface StackService {
  /** `teams` (`stack init --teams`): existing teams of the organization given `write` on the new stack. */
  create(principal: Principal, ref: StackRef, options?: { tags?: Record<string, string>; initialState?: UntypedDeployment; teams?: string[] }): Promise<StackRecord>;
  get(principal: Principal, ref: StackRef): Promise<StackRecord>;
  /** Lists across the principal's organizations (or one of them), paged with an opaque token. */
  list(principal: Principal, query: { org?: string; project?: string; tagName?: string; tagValue?: string; continuationToken?: string }): Promise<StackPageView>;
  /** Without `force`, refuses a stack that still holds resources with `Bad Request: Stack still contains resources.` */
  remove(principal: Principal, ref: StackRef, force: boolean): Promise<void>;
  /** Rewrites URNs and the secrets provider in the stored state, keeps secrets decryptable, bumps the version. */
  rename(principal: Principal, ref: StackRef, to: { project: string; stack: string }): Promise<StackRecord>;
  setTags(principal: Principal, ref: StackRef, tags: Record<string, string>): Promise<void>;
  /** The current deployment (a valid minimal one for a never-updated stack), or that of a given version. */
  exportDeployment(principal: Principal, ref: StackRef, version?: number): Promise<UntypedDeployment>;
  /** Validates, then stores as a new version (history kind `import`). Returns the id of the import's update. */
  importDeployment(principal: Principal, ref: StackRef, deployment: UntypedDeployment): Promise<{ updateId: string }>;
  history(principal: Principal, ref: StackRef, page: number, pageSize: number): Promise<UpdateRecord[]>;
  /** The newest completed, non-dry-run operation; `NotFoundError` when the stack has none. */
  latestUpdate(principal: Principal, ref: StackRef): Promise<UpdateRecord>;
  /** `HEAD /api/stacks/{o}/{p}`: whether the project has at least one stack the principal can see. */
  projectExists(principal: Principal, org: string, project: string): Promise<boolean>;
}

export interface UpdateService {
  create(principal: Principal, ref: StackRef, request: CreateUpdateRequest): Promise<{ updateId: string }>;
  /** Takes the lease (non-dry-run) or issues a token (dry run); `LeaseHeldError` when another update runs. */
  start(principal: Principal, ref: StackRef, updateId: string, request: StartUpdateRequest): Promise<StartedUpdate>;
  renew(ref: StackRef, updateId: string, token: string, durationMs?: number): Promise<{ token: string; tokenExpiration: number }>;
  /**
   * Durable when it resolves: export returns it from then on. Takes the decoded deployment, or (the fast path for
   * the `checkpoint` PATCH) the gunzipped request body `{isInvalid, version, features?, deployment}` as bytes, which
   * is validated and stored as received instead of being parsed by the caller and serialised again here.
   */
  saveCheckpoint(ref: StackRef, updateId: string, token: string, deployment: UntypedDeployment | Uint8Array | CheckpointUpload): Promise<void>;
  /** `checkpointverbatim`: the gunzipped request body; its `untypedDeployment` bytes are kept exactly. Idempotent by sequence number. */
  saveVerbatimCheckpoint(ref: StackRef, updateId: string, token: string, body: Buffer): Promise<void>;
  /** `checkpointdelta`: byte-offset edits on the last verbatim save; hash mismatch or gap = 4xx so the CLI falls back. */
  saveDeltaCheckpoint(ref: StackRef, updateId: string, token: string, body: Buffer): Promise<void>;
  /** `journalentries`: one batch, durable and idempotent by `sequenceID`; an oversize batch is `TooLargeError`. */
  saveJournalEntries(ref: StackRef, updateId: string, token: string, body: Buffer): Promise<void>;
  /** The token is checked against exactly this update (`ForbiddenError` otherwise), for routes that only need that. */
  validateToken(ref: StackRef, updateId: string, token: string): Promise<void>;
  recordEvents(ref: StackRef, updateId: string, token: string, events: unknown[]): Promise<void>;
  /** Idempotent. `cancelled` is recorded, and reported in history as `failed`. */
  complete(ref: StackRef, updateId: string, token: string, status: 'succeeded' | 'failed' | 'cancelled', request?: RequestInfo): Promise<void>;
  /** Revokes the update's token so the running client stops on its next call. */
  cancel(principal: Principal, ref: StackRef, updateId: string): Promise<void>;
  status(principal: Principal, ref: StackRef, updateId: string): Promise<UpdateStatusView>;
}

export interface SecretService {
  /** Each plaintext/ciphertext is raw bytes; ciphertexts are bound to the stack's immutable id. */
  encrypt(principal: Principal, ref: StackRef, plaintexts: Uint8Array[]): Promise<Uint8Array[]>;
  /** A ciphertext of another stack, or a tampered one, is `InvalidInputError` (400). */
  decrypt(principal: Principal, ref: StackRef, ciphertexts: Uint8Array[]): Promise<Uint8Array[]>;
  /** `log-decryption`: the CLI reports a decryption it did itself (third-party secrets providers); audited only. */
  reportDecryption(principal: Principal, ref: StackRef, what: string): Promise<void>;
}

/** A completed operation of another backend's history, as `stackyard migrate` carries it over. */
export interface CarriedHistoryEntry {
  /** The version this entry must become: the stack's current version plus one (so a repeated call is refused). */
  version: number;
  kind: UpdateKind;
  result: 'succeeded' | 'failed';
  /** Epoch milliseconds. */
  startedAt: number;
  endedAt: number;
  message?: string;
  environment: Record<string, string>;
  /** `{"ns:key": {string, secret, object}}`, secrets already encrypted with this stack's key. */
  config: Record<string, unknown>;
  resourceChanges?: Record<string, number>;
  /** The state the operation ended with; absent when the source kept none. */
  deployment?: UntypedDeployment;
}

export interface StackRestoreService {
  /** Publishes version `version`'s state as a new version, recorded in history (kind `import`, message says so). */
  rollback(principal: Principal, ref: StackRef, version: number): Promise<{ updateId: string; version: number }>;
  /** Appends one carried-over history entry as the stack's next version and makes its state current. */
  appendHistory(principal: Principal, ref: StackRef, entry: CarriedHistoryEntry): Promise<{ updateId: string }>;
}
