import type { StackRef } from '../names.js';
import type { UpdateKind, UpdateRecord } from '../../ports/update-store.js';
import type { StackRecord } from '../../ports/stack-store.js';
import type { Principal } from '../kernel/principal.js';
import type { UntypedDeployment } from '../checkpoints/index.js';

export interface StackPageView {
  stacks: StackRecord[];
  /** Absent on the last page, never empty. */
  continuationToken?: string;
}

export interface StackService {
  /** `teams` (`stack init --teams`): existing teams of the organization given `write` on the new stack. */
  /** `configEnvironment` (`<project>/<env>`, remote config) links the stack to the environment holding its configuration. */
  create(
    principal: Principal,
    ref: StackRef,
    options?: { tags?: Record<string, string>; initialState?: UntypedDeployment; teams?: string[]; configEnvironment?: string },
  ): Promise<StackRecord>;
  /** `PUT …/config`: links the stack to another environment (`<project>/<env>`) holding its configuration. */
  setConfigEnvironment(principal: Principal, ref: StackRef, environment: string): Promise<StackRecord>;
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
