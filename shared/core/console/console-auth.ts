import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ForbiddenError, InvalidInputError, UnauthorizedError } from '../errors.js';
import type { ServiceDeps } from '../kernel/deps.js';
import { hashApiToken } from '../identity/identity-service.js';
import type { IdentityService } from '../identity/index.js';
import type { Principal, RequestInfo } from '../kernel/principal.js';
import { auditAuthenticationFailure, audited } from '../audit/audit.js';
import type { ConsoleService, ConsoleSignIn, LoginCodeSource } from './types.js';

/** How long a browser stays signed in, measured on the server: the cookie's own Max-Age is only a hint. */
export const CONSOLE_SESSION_MS = 12 * 60 * 60 * 1000;
/** How long a `stackyard console` login code can be exchanged. */
export const LOGIN_CODE_MS = 60_000;
const MAX_SECRET_LENGTH = 200;
/** Console pages: the Pulumi Cloud URL layout (`/<org>/<project>/<stack>/…`), nothing that leaves the origin. */
const CONSOLE_PATH = /^\/(?!\/)[A-Za-z0-9._~\/-]{0,500}$/;

const SESSION_ENDED = 'Your console session has ended (signed out or expired): sign in again.';
const TOKEN_GONE =
  'Your console session has ended: the access token it was opened with was revoked or has expired. Sign in again ' +
  'with a valid token.';
const BAD_CODE =
  'This login code is not valid: codes work once, within 60 seconds. Run `stackyard console` again, or sign in ' +
  'with an access token.';

function sha256Hex(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

function isSecret(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_SECRET_LENGTH;
}

/** Derived from the session id, so nothing more is stored; only a page that can read the session's JSON learns it. */
function csrfTokenOf(sessionId: string): string {
  return createHash('sha256').update(`stackyard-console-csrf\0${sessionId}`, 'utf8').digest('base64url');
}

/** Sign-in, sessions, CSRF and login codes of the web console. */
export function createConsoleAuth(
  deps: ServiceDeps,
  identity: IdentityService,
): Pick<
  ConsoleService,
  'signInWithToken' | 'signInWithCode' | 'createLoginCode' | 'sessionPrincipal' | 'checkCsrf' | 'csrfToken' | 'signOut'
> {
  const sessions = deps.storage.consoleSessions;

  /** A session acts with the token it was opened with: its rights, and its revocation or expiry ends the session. */
  async function openSession(principal: Principal, tokenHash: string, next?: string): Promise<ConsoleSignIn> {
    const sessionId = newSecret();
    const createdAt = deps.now();
    const expiresAt = createdAt + CONSOLE_SESSION_MS;
    await sessions.createSession({ idHash: sha256Hex(sessionId), tokenHash, login: principal.login, createdAt, expiresAt });
    return { sessionId, csrfToken: csrfTokenOf(sessionId), login: principal.login, expiresAt, ...(next ? { next } : {}) };
  }

  async function liveSession(sessionId: string) {
    if (!isSecret(sessionId)) throw new UnauthorizedError(SESSION_ENDED);
    const session = await sessions.getSession(sha256Hex(sessionId));
    if (!session) throw new UnauthorizedError(SESSION_ENDED);
    return session;
  }

  /** Opens the session with its `console.signed-in` entry, in the log of the organization the token acts for. */
  function signedIn(principal: Principal, tokenHash: string, how: string, next?: string): Promise<ConsoleSignIn> {
    const org = principal.token?.org ?? principal.login;
    const spec = { org, event: 'console.signed-in', target: principal.login, description: `signed in to the console ${how}` } as const;
    return audited(deps, principal, spec, () => openSession(principal, tokenHash, next));
  }

  /** A refused login code is an authentication failure like a refused token (site log: no one is known yet). */
  async function badCode(request: RequestInfo | undefined): Promise<never> {
    await auditAuthenticationFailure(deps, request, 'invalid, used or expired console login code');
    throw new UnauthorizedError(BAD_CODE);
  }

  return {
    async signInWithToken(token, request) {
      // A refused token is recorded by `authenticate` itself (auth.failed).
      return signedIn(await identity.authenticate(token, request), hashApiToken(token), 'with an access token');
    },

    async signInWithCode(code, request) {
      if (!isSecret(code)) return badCode(request);
      const redeemed = await sessions.redeemLoginCode(sha256Hex(code));
      if (!redeemed) return badCode(request);
      const principal = await identity.authenticateHash(redeemed.tokenHash).catch(() => badCode(request));
      return signedIn({ ...principal, ...(request ? { request } : {}) }, redeemed.tokenHash, 'with a login code', redeemed.path);
    },

    async createLoginCode(principal, path, source: LoginCodeSource) {
      if (typeof path !== 'string' || !CONSOLE_PATH.test(path) || path.split('/').some((s) => s === '..' || s === '.')) {
        throw new InvalidInputError(
          `The console path must be a page of this console such as /<org>/<project>/<stack>, got '${String(path).slice(0, 80)}'.`,
        );
      }
      const tokenHash = 'token' in source ? hashApiToken(source.token) : (await liveSession(source.sessionId)).tokenHash;
      const code = newSecret();
      const createdAt = deps.now();
      const expiresAt = createdAt + LOGIN_CODE_MS;
      await sessions.createLoginCode({ codeHash: sha256Hex(code), tokenHash, login: principal.login, path, createdAt, expiresAt });
      return { code, expiresAt };
    },

    async sessionPrincipal(sessionId) {
      const session = await liveSession(sessionId);
      return identity.authenticateHash(session.tokenHash).catch((error: unknown) => {
        if (error instanceof UnauthorizedError) throw new UnauthorizedError(TOKEN_GONE);
        throw error;
      });
    },

    checkCsrf(sessionId, presented) {
      const expected = Buffer.from(csrfTokenOf(sessionId));
      const given = Buffer.from(typeof presented === 'string' ? presented : '');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw new ForbiddenError(
          'This request changes something and needs the console session\'s CSRF token in the X-Stackyard-CSRF header: ' +
            'reload the console page and retry.',
        );
      }
    },

    csrfToken: csrfTokenOf,

    async signOut(sessionId, principal) {
      if (!isSecret(sessionId)) return;
      const idHash = sha256Hex(sessionId);
      const session = await sessions.getSession(idHash);
      if (!session) return;
      const actor = principal ?? { login: session.login };
      const org = principal?.token?.org ?? session.login;
      const spec = { org, event: 'console.signed-out', target: session.login, description: 'signed out of the console' } as const;
      await audited(deps, actor, spec, () => sessions.deleteSession(idHash));
    },
  };
}
