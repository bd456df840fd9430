import type { StackRef } from '../names.js';
import type { Principal, RequestInfo } from '../kernel/principal.js';
import type { StackPermission } from '../kernel/permissions.js';
import type { UpdateEndReason, UpdateKind, UpdateRecord, UpdateStatus } from '../../ports/update-store.js';

/** What a browser gets from signing in: the cookie's session id, and the CSRF token its page sends back. */
export interface ConsoleSignIn {
  sessionId: string;
  csrfToken: string;
  login: string;
  /** Epoch milliseconds. */
  expiresAt: number;
  /** The page a login code was made for. */
  next?: string;
}

/** The credential a login code is asked with: the CLI's access token, or a console session (which has one). */
export type LoginCodeSource = { token: string } | { sessionId: string };

/** The exclusive lease of a running update, as the console shows it. */
export interface LeaseView {
  updateId: string;
  holder: string;
  kind?: UpdateKind;
  /** Epoch milliseconds. */
  since: number;
  /** Epoch milliseconds. */
  expiresAt: number;
}

/** One update as the console lists it. */
export interface UpdateSummary {
  updateId: string;
  version?: number;
  kind: UpdateKind;
  status: UpdateStatus;
  requestedBy: string;
  cancelledBy?: string;
  /** `lease-expired`: abandoned by its client, folded as failed; `policy-bypassed`: failed by the policy check. */
  endReason?: UpdateEndReason;
  startedAt?: number;
  endedAt?: number;
  message?: string;
  resourceChanges?: Record<string, number>;
}

/** A stack's row on its organization's page, and the head of its own page. */
export interface StackOverview extends StackRef {
  tags: Record<string, string>;
  version: number;
  /** The caller's permission on the stack, so the page offers only what it may do (reveal and cancel need write). */
  permission: StackPermission;
  resourceCount?: number;
  lastUpdate?: UpdateSummary;
  lease?: LeaseView;
  /**
   * The stack's running update when its lease is gone (its client crashed or was killed): abandoned, and recorded
   * as failed only at the stack's next update, refresh, destroy, import or rename.
   */
  abandonedUpdate?: UpdateSummary;
}

/** An update as the console reads it; `abandoned` while it still runs on record but its lease is gone. */
export type FoundUpdate = UpdateRecord & { abandoned?: true };

export interface UpdateEventsPage {
  events: unknown[];
  /** Sequence of the last event returned; absent when there was none. */
  last?: number;
  /** True once the update has ended (or was abandoned) and every event it recorded has been returned. */
  done: boolean;
}

/**
 * The web console's sign-in and its reads beyond the Pulumi CLI's routes. Authorization is the permission table's
 * (shared/core/kernel/permissions.ts), as for the CLI's routes: another organization's stack is not found.
 */
export interface ConsoleService {
  /** Signs in with an access token pasted into the sign-in page. */
  signInWithToken(token: string, request?: RequestInfo): Promise<ConsoleSignIn>;
  /** Exchanges a `stackyard console` login code (once, within 60 s) for a session. */
  signInWithCode(code: string, request?: RequestInfo): Promise<ConsoleSignIn>;
  /** A one-time code that signs the principal in, acting with the token of `source`, and opens `path`. */
  createLoginCode(principal: Principal, path: string, source: LoginCodeSource): Promise<{ code: string; expiresAt: number }>;
  /**
   * The principal of a live session: that of the token it was opened with. `UnauthorizedError` once it expired,
   * signed out, or its token was revoked or expired.
   */
  sessionPrincipal(sessionId: string): Promise<Principal>;
  /** `ForbiddenError` unless `presented` is this session's CSRF token. */
  checkCsrf(sessionId: string, presented: string | undefined): void;
  csrfToken(sessionId: string): string;
  /** Ends the session on the server (recorded as `console.signed-out`, by `principal` when known); idempotent. */
  signOut(sessionId: string, principal?: Principal): Promise<void>;
  orgStacks(principal: Principal, org: string): Promise<StackOverview[]>;
  stackOverview(principal: Principal, ref: StackRef): Promise<StackOverview>;
  /** An update by version (history, or the running one that will get it) or by update id. */
  findUpdate(principal: Principal, ref: StackRef, versionOrId: string): Promise<FoundUpdate>;
  /** Engine events recorded after sequence `after` (all when absent), oldest first. */
  updateEvents(principal: Principal, ref: StackRef, updateId: string, after?: number): Promise<UpdateEventsPage>;
}
