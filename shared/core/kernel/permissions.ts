import { InvalidInputError } from '../errors.js';

/**
 * What each permission allows: the one table every route, the CLI's local backend and docs/security.md follow.
 *
 * Stack permissions are ordered `read` < `write` < `admin`; holding one includes everything the lower ones allow.
 * Organization actions need an organization role (or a token kind, for team and organization tokens).
 */

/** Per-stack permission levels, as Pulumi Cloud models them (Stack Read / Stack Write / Stack Admin). */
export type StackPermission = 'read' | 'write' | 'admin';

/** The organization setting for members' permission on stacks they were given nothing on. */
export type DefaultStackPermission = 'none' | StackPermission;

export const STACK_PERMISSIONS: readonly StackPermission[] = ['read', 'write', 'admin'];

/** Everything a caller can do to one stack, and the permission it takes. */
export const STACK_ACTIONS = {
  /** Stack record, update status, tags listing. */
  view: 'read',
  /** The stored deployment with its secrets still encrypted (`stack export` without --show-secrets). */
  export: 'read',
  history: 'read',
  /** Encrypting reveals nothing: `config set --secret`. */
  encrypt: 'read',
  /** Reading the stack's hooks and their deliveries. */
  'read-hooks': 'read',
  /** Create/start updates of any kind (preview, update, refresh, destroy): they decrypt the stack's config. */
  update: 'write',
  cancel: 'write',
  import: 'write',
  /** `stack rollback` and `migrate`'s carried-over history: state edits of the stack's own versions. */
  restore: 'write',
  /** Secret decryption: `config --show-secrets`, `stack export --show-secrets`, the engine's config. */
  decrypt: 'write',
  tags: 'write',
  /** Which ESC environment holds the stack's configuration (`PUT .../config`, remote config). */
  config: 'write',
  'manage-hooks': 'write',
  /** A stack's deployment settings (sealed secrets only) and its runs and their logs. */
  'read-deployments': 'read',
  /** Deployment settings: what a runner will run, with which environment, from which repository. */
  'manage-deployments': 'admin',
  /** The approvals a stack requires, its plans and their verdicts. */
  'read-approvals': 'read',
  /** Uploading a plan for approval (it is made by a preview, which takes `write`). */
  'submit-plan': 'write',
  /** Approving or rejecting someone else's plan: the users who could run the update themselves. */
  'approve-plan': 'write',
  /** The stack's own approval requirement. */
  'manage-approvals': 'admin',
  delete: 'admin',
  rename: 'admin',
  'manage-permissions': 'admin',
} as const satisfies Record<string, StackPermission>;

export type StackAction = keyof typeof STACK_ACTIONS;

/** Organization-wide actions. `admin` = an organization administrator using a personal token. */
export const ORG_ACTIONS = {
  /** Creating stacks: members and admins (not viewers); team and organization tokens too. */
  'create-stack': 'member',
  /** Creating environments: members and admins (not viewers); team and organization tokens too. */
  'create-environment': 'member',
  'list-stacks': 'viewer',
  'manage-members': 'admin',
  'manage-teams': 'admin',
  'manage-tokens': 'admin',
  'manage-hooks': 'admin',
  'read-hooks': 'admin',
  'manage-settings': 'admin',
  'read-audit-log': 'admin',
  /** OIDC trust policies: which CI identities may exchange ID tokens for this organization's tokens. */
  'manage-oidc-policies': 'admin',
  /** The organization's approval rules: every member reads them; administrators change them. */
  'read-approval-rules': 'viewer',
  'manage-approval-rules': 'admin',
  /** Policy packs and groups: publishing, enabling, disabling, deleting, group membership (docs/policy.md). */
  'manage-policies': 'admin',
  /** Reading packs, groups and downloading a pack version's tarball; team and organization tokens too. */
  'read-policies': 'member',
} as const satisfies Record<string, 'viewer' | 'member' | 'admin'>;

export type OrgAction = keyof typeof ORG_ACTIONS;

const RANK: Record<StackPermission, number> = { read: 1, write: 2, admin: 3 };

/** Whether `held` includes `needed`. */
export function allows(held: StackPermission | undefined, needed: StackPermission): boolean {
  return held !== undefined && RANK[held] >= RANK[needed];
}

/** The higher of two permissions (`undefined` = none). */
export function strongest(a: StackPermission | undefined, b: StackPermission | undefined): StackPermission | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return RANK[a] >= RANK[b] ? a : b;
}

export function isStackPermission(value: unknown): value is StackPermission {
  return value === 'read' || value === 'write' || value === 'admin';
}

/** Grant subjects on a stack record: `user:<login>` or `team:<name>`. */
export type GrantSubject = `user:${string}` | `team:${string}`;

export const userSubject = (login: string): GrantSubject => `user:${login}`;
export const teamSubject = (team: string): GrantSubject => `team:${team}`;

const SUBJECT = /^(user|team):[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;
export const MAX_GRANTS = 500;

/** Checks a stack's grants map (adapters call it before storing one). */
export function validateGrants(grants: unknown): Record<string, StackPermission> {
  if (grants === null || typeof grants !== 'object' || Array.isArray(grants)) {
    throw new InvalidInputError('Stack grants must be an object of subjects to permissions.');
  }
  const entries = Object.entries(grants as Record<string, unknown>);
  if (entries.length > MAX_GRANTS) throw new InvalidInputError(`A stack can have at most ${MAX_GRANTS} grants.`);
  for (const [subject, permission] of entries) {
    if (!SUBJECT.test(subject) || !isStackPermission(permission)) {
      throw new InvalidInputError(`Invalid grant '${subject.slice(0, 120)}': expected user:<login> or team:<name> → read, write or admin.`);
    }
  }
  return { ...(grants as Record<string, StackPermission>) };
}

/** Checks one grant as `StackStore.setGrant` takes it: a subject, and a permission or `null` (remove). */
export function validateGrant(subject: unknown, permission: unknown): void {
  if (typeof subject !== 'string' || !SUBJECT.test(subject) || (permission !== null && !isStackPermission(permission))) {
    throw new InvalidInputError(`Invalid grant '${String(subject).slice(0, 120)}': expected user:<login> or team:<name> → read, write or admin.`);
  }
}

/** Checks a creator subject as stored on a stack. */
export function validateCreator(subject: unknown): string {
  if (typeof subject !== 'string' || !SUBJECT.test(subject)) {
    throw new InvalidInputError('Invalid stack creator: expected user:<login> or team:<name>.');
  }
  return subject;
}

/**
 * Per-environment permission levels, as Pulumi ESC models them: `read` shows the definition (secrets hidden),
 * `open` evaluates it and reveals secrets, `write` changes it, `admin` deletes it and manages its permissions.
 */
export type EnvironmentPermission = 'read' | 'open' | 'write' | 'admin';

/** Members' permission on environments they were given nothing on (Pulumi's default environment permission). */
export const DEFAULT_MEMBER_ENVIRONMENT_PERMISSION: EnvironmentPermission = 'write';

/** Everything a caller can do to one environment, and the permission it takes. */
export const ENVIRONMENT_ACTIONS = {
  /** The definition with secrets as ciphertext, revisions, tags, `check` without revealed secrets. */
  read: 'read',
  /** Evaluating: `open`, `check --show-secrets`, the definition with secrets in plaintext. */
  open: 'open',
  /** A new revision, revision tags, clone into it. */
  write: 'write',
  delete: 'admin',
  'manage-permissions': 'admin',
} as const satisfies Record<string, EnvironmentPermission>;

export type EnvironmentAction = keyof typeof ENVIRONMENT_ACTIONS;

const ENVIRONMENT_RANK: Record<EnvironmentPermission, number> = { read: 1, open: 2, write: 3, admin: 4 };

/** Whether `held` includes `needed` (environment permissions). */
export function allowsEnvironment(held: EnvironmentPermission | undefined, needed: EnvironmentPermission): boolean {
  return held !== undefined && ENVIRONMENT_RANK[held] >= ENVIRONMENT_RANK[needed];
}

/** The higher of two environment permissions (`undefined` = none). */
export function strongestEnvironment(
  a: EnvironmentPermission | undefined,
  b: EnvironmentPermission | undefined,
): EnvironmentPermission | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return ENVIRONMENT_RANK[a] >= ENVIRONMENT_RANK[b] ? a : b;
}

export function isEnvironmentPermission(value: unknown): value is EnvironmentPermission {
  return value === 'read' || value === 'open' || value === 'write' || value === 'admin';
}

/** Checks one environment grant as `EnvironmentStore.setGrant` takes it (`null` removes it). */
export function validateEnvironmentGrant(subject: unknown, permission: unknown): void {
  if (typeof subject !== 'string' || !SUBJECT.test(subject) || (permission !== null && !isEnvironmentPermission(permission))) {
    throw new InvalidInputError(
      `Invalid grant '${String(subject).slice(0, 120)}': expected user:<login> or team:<name> → read, open, write or admin.`,
    );
  }
}
