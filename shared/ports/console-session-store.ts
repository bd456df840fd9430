/** A signed-in browser of the web console. */
export interface ConsoleSession {
  /** SHA-256 hex of the session id the browser holds in its cookie; the id itself is never stored. */
  idHash: string;
  /** SHA-256 hex of the access token the session acts with: revoking that token ends the session. */
  tokenHash: string;
  /** Who signed in (for display and logs; rights come from the token). */
  login: string;
  /** Epoch milliseconds. */
  createdAt: number;
  /** Epoch milliseconds; the session is dead from this instant on, whatever the cookie says. */
  expiresAt: number;
}

/** A one-time code `stackyard console` hands to the browser, to be exchanged for a session. */
export interface LoginCode {
  /** SHA-256 hex of the code; the code itself is never stored. */
  codeHash: string;
  /** SHA-256 hex of the access token that asked for the code; the session it opens acts with that token. */
  tokenHash: string;
  login: string;
  /** The console page the browser lands on once signed in (e.g. `/acme/web/dev`). */
  path: string;
  /** Epoch milliseconds. */
  createdAt: number;
  /** Epoch milliseconds. */
  expiresAt: number;
}

/**
 * Web console sessions and `stackyard console` login codes (DynamoDB items with TTL in AWS, files locally).
 *
 * Guarantees:
 * - Only hashes are stored; callers look records up by hash.
 * - `createSession` and `createLoginCode` are create-if-absent: `ConflictError` if the hash exists, nothing changed.
 * - Expiry is checked on every read against the store's clock: `getSession` returns `undefined` for a session
 *   that is missing, signed out or expired (TTL sweepers only clean up).
 * - `deleteSession` is idempotent.
 * - `redeemLoginCode` is one conditional delete: a code is returned exactly once, and only before it expires; every
 *   other call (a second redeem, a concurrent one, an expired or unknown code) returns `undefined`.
 */
export interface ConsoleSessionStore {
  createSession(session: ConsoleSession): Promise<void>;
  getSession(idHash: string): Promise<ConsoleSession | undefined>;
  deleteSession(idHash: string): Promise<void>;
  createLoginCode(code: LoginCode): Promise<void>;
  redeemLoginCode(codeHash: string): Promise<LoginCode | undefined>;
}
