/**
 * What the CLI's commands need from wherever stacks live. Two implementations: `LocalBackend` runs the shared
 * services in-process on a local data folder (`login --local`, `login file://…`), `HttpBackend` talks to a
 * Stackyard service. Commands never know which one they have.
 */
import { isDomainError, type LeaseHolder } from '../../shared/core/errors.js';
import type { StackRef } from '../../shared/core/names.js';
import type { AccessBackend } from './access-backend.js';
import type { StateDiffBackend } from './state-diff-backend.js';
import type { PolicyBackend } from './policy-backend.js';
import type { RequiredPolicy } from '../policy/policy-types.js';
import type { DeploymentsBackend } from './deployments-backend.js';
import type { DriftBackend } from './drift-backend.js';
import type { IssuerBackend } from './issuer-backend.js';
import type { SchedulesBackend } from './schedules-backend.js';
import type { EnvironmentsBackend } from './environments-backend.js';
import type { ApprovalsBackend } from './approvals-backend.js';
import type { HooksBackend } from './hooks-backend.js';
import type { IdentityBackend, TokenInfo } from './identity-backend.js';
import type { UntypedDeployment } from '../../shared/core/checkpoints/types.js';
import type { DeliveryView } from '../../shared/core/hooks/delivery-view.js';
import type { AddHookRequest, HookTarget, HookView } from '../../shared/core/hooks/hook-service.js';
import type { JournalEntry } from '../../shared/core/journal/types.js';
import { ApiError } from '../api-client/api-error.js';

export type { AddHookRequest, DeliveryView, HookTarget, HookView, StackRef, TokenInfo, UntypedDeployment };

/** One row of `stack ls`. */
export interface StackSummary {
  ref: StackRef;
  /** Epoch milliseconds of the last completed update; absent when never updated. */
  lastUpdate?: number;
  updateInProgress: boolean;
  resourceCount?: number;
}

export interface StackDetails {
  ref: StackRef;
  tags: Record<string, string>;
  /** The update holding the stack, if one runs. */
  activeUpdate?: string;
  version: number;
  /** `<project>/<env>`: the ESC environment holding the stack's configuration (remote config), if it has one. */
  configEnvironment?: string;
}

/** A history entry in the Pulumi wire shape (`apitype.UpdateInfo`): times in epoch seconds. */
export interface UpdateInfo {
  kind: string;
  startTime: number;
  message: string;
  environment: Record<string, string>;
  config: Record<string, unknown>;
  result: 'not-started' | 'in-progress' | 'succeeded' | 'failed';
  endTime?: number;
  version: number;
  resourceChanges?: Record<string, number>;
  resourceCount?: number;
  /** Login of whoever cancelled the update (`result` is then `failed`, as Pulumi reports it). */
  cancelledBy?: string;
  /**
   * `lease-expired`: abandoned by its client (crashed or killed) and recorded as failed once its lease expired;
   * `policy-bypassed`: completed as succeeded, recorded as failed because required policy packs did not run or were violated.
   */
  endReason?: 'lease-expired' | 'policy-bypassed';
  /** With `policy-bypassed`: which packs, in words. */
  endMessage?: string;
  /** Login of whoever ran the update (stackyard's service adds it to Pulumi's shape). */
  requestedBy?: string;
}

/** A history entry carried over from another backend: Pulumi's `UpdateInfo` shape plus the state it ended with. */
export interface CarriedHistoryInfo {
  version: number;
  kind: string;
  result: 'succeeded' | 'failed';
  /** Epoch seconds. */
  startTime: number;
  endTime: number;
  message: string;
  environment: Record<string, string>;
  /** `{"ns:key": {string, secret, object}}`, secrets encrypted with the target stack's key. */
  config: Record<string, unknown>;
  resourceChanges?: Record<string, number>;
  deployment?: UntypedDeployment;
}

export interface WhoAmI {
  user: string;
  organizations: string[];
}

/** `import` is `stackyard import`'s update: the service's `update`, a local `resource-import` (as Pulumi's backends record it). */
export type OperationKind = 'update' | 'preview' | 'refresh' | 'destroy' | 'import';

export interface UpdateRequest {
  kind: OperationKind;
  dryRun: boolean;
  message?: string;
  environment: Record<string, string>;
  /** `{"ns:key": {string, secret, object}}` with secret values still encrypted. */
  config: Record<string, unknown>;
  program: { name: string; runtime: string; main?: string; description?: string };
}

export interface StartOptions {
  leaseDurationSeconds?: number;
  /** `1` asks the service for journaling (Pulumi's `journalVersion`); it may still answer checkpoints. */
  journalVersion?: number;
  /** `up --plan` with a plan on the service: the plan and the program's digest, which the service checks. */
  stackyardPlan?: { id: string; programDigest: string };
}

export interface StartedUpdate {
  version: number;
  token: string;
  /** `1` when the service takes journal entries instead of checkpoints for this update (it was asked to). */
  journalVersion?: 0 | 1;
}

/** A created update: its id, and the policy packs it must run (Pulumi's `requiredPolicies`). */
export interface CreatedUpdate {
  updateId: string;
  requiredPolicies: RequiredPolicy[];
}

export interface Backend {
  /** The URL users log in with (`file://…` for local storage). */
  readonly url: string;
  readonly kind: 'local' | 'service';

  whoami(): Promise<WhoAmI>;
  /** Members, roles, teams, stack permissions, team and organization tokens. */
  access(): AccessBackend;
  /** `stack diff`: what changed between two versions, computed by the core on either backend. */
  stateDiff(): StateDiffBackend;
  /** Opening ESC environments (a stack's `environment:`), on either backend. */
  environments(): EnvironmentsBackend;
  /** Approvals of update plans: on a service only (the local backend's calls say so). */
  approvals(): ApprovalsBackend;
  /** Users, organizations, members and personal tokens. */
  identity(): IdentityBackend;
  /** Hooks of organizations and stacks (docs/hooks.md). */
  hooks(): HooksBackend;
  /** Deployment settings and runs (`stackyard deployment …`); the local backend refuses every call. */
  deployments(): DeploymentsBackend;
  /** Scheduled deployments (`stackyard stack schedule …`); the local backend refuses every call. */
  schedules(): SchedulesBackend;
  /** Drift runs and drift status (`stackyard stack drift …`). */
  drift(): DriftBackend;
  /** The environments' OIDC issuer keys (`stackyard admin oidc-key …`). */
  issuer(): IssuerBackend;
  /** Policy packs and groups (`stackyard policy …`); the local backend refuses every call. */
  policies(): PolicyBackend;
  /** The organization of stack names given without one. */
  defaultOrg(): Promise<string>;

  listStacks(filter: { org?: string; project?: string; tagName?: string; tagValue?: string }): Promise<StackSummary[]>;
  /**
   * `teams` (`stack init --teams`): teams of the organization given `write` on the new stack. `configEnvironment`
   * (`--remote-config`): the ESC environment (`<project>/<stack>`) the service creates, or links, for its configuration.
   */
  createStack(ref: StackRef, tags: Record<string, string>, teams?: string[], configEnvironment?: string): Promise<void>;
  getStack(ref: StackRef): Promise<StackDetails>;
  removeStack(ref: StackRef, force: boolean): Promise<void>;
  renameStack(ref: StackRef, to: { project: string; stack: string }): Promise<void>;
  setTags(ref: StackRef, tags: Record<string, string>): Promise<void>;
  exportDeployment(ref: StackRef, version?: number): Promise<UntypedDeployment>;
  /** The live lease of the stack's running update (`undefined` when none runs or its lease expired). */
  liveLease(ref: StackRef): Promise<LeaseHolder | undefined>;
  importDeployment(ref: StackRef, deployment: UntypedDeployment): Promise<void>;
  history(ref: StackRef, page: number, pageSize: number): Promise<UpdateInfo[]>;
  /** Publishes version `version`'s state as the stack's next version (recorded in history); refused while an update runs. */
  rollback(ref: StackRef, version: number): Promise<{ version: number }>;
  /** Appends another backend's history entry as the stack's next version (`entry.version`), its state made current. */
  appendHistory(ref: StackRef, entry: CarriedHistoryInfo): Promise<void>;
  cancelUpdate(ref: StackRef, updateId: string): Promise<void>;

  /** Encrypts UTF-8 plaintexts with the stack's key; returns base64 ciphertexts in the same order. */
  encrypt(ref: StackRef, plaintexts: string[]): Promise<string[]>;
  /** Decrypts base64 ciphertexts of this stack; any foreign or altered one fails the whole batch. */
  decrypt(ref: StackRef, ciphertexts: string[]): Promise<string[]>;

  /** Creates the update; a service answers the packs its policy groups require for it (none on the local backend). */
  createUpdate(ref: StackRef, request: UpdateRequest): Promise<CreatedUpdate>;
  /**
   * Takes the stack's lease (real runs) or a token (dry runs) for `leaseDurationSeconds` (the service's default
   * when absent). Another update holding the stack is a `LeaseHeldError` naming it, from either backend.
   */
  startUpdate(ref: StackRef, updateId: string, tags: Record<string, string>, options?: StartOptions): Promise<StartedUpdate>;
  /** Extends the update's lease; returns the token to use from now on. */
  renewLease(ref: StackRef, updateId: string, token: string, durationSeconds: number): Promise<string>;
  saveCheckpoint(ref: StackRef, updateId: string, token: string, deployment: UntypedDeployment): Promise<void>;
  /** Appends journal entries (after a start that answered `journalVersion: 1`); durable when it resolves. */
  appendJournalEntries(ref: StackRef, updateId: string, token: string, entries: JournalEntry[]): Promise<void>;
  recordEvents(ref: StackRef, updateId: string, token: string, events: unknown[]): Promise<void>;
  completeUpdate(ref: StackRef, updateId: string, token: string, status: 'succeeded' | 'failed' | 'cancelled'): Promise<void>;

  close(): Promise<void>;
}

/** A 404 from either backend. */
export function isNotFound(error: unknown): boolean {
  return (isDomainError(error) && error.status === 404) || (error instanceof ApiError && error.status === 404);
}

/** A 403 from either backend: the caller may not do this (or, for an update token, the lease is gone). */
export function isForbidden(error: unknown): boolean {
  return (isDomainError(error) && error.status === 403) || (error instanceof ApiError && error.status === 403);
}

/** The secrets provider recorded in a stack's deployments (Pulumi's `service` provider shape, §5). */
export function secretsProviderFor(backend: Backend, ref: StackRef): { type: string; state: Record<string, string> } {
  return { type: 'service', state: { url: backend.url, owner: ref.org, project: ref.project, stack: ref.stack } };
}
