import * as z from 'zod/mini';
import { InvalidInputError, UnauthorizedError } from '../../../shared/core/errors.js';
import { CONSOLE_SESSION_MS, type ConsoleSignIn } from '../../../shared/core/console/index.js';
import { apiToken, requestInfo } from '../auth.js';
import type { RouteContext } from '../context.js';
import { isHttps, sessionCookie, sessionSetCookie } from '../console-session.js';
import { validateBody } from '../decode.js';
import { jsonResponse } from '../respond.js';
import type { Route } from '../router.js';
import { updateInfo } from '../wire.js';

/**
 * The web console's own routes (docs/console.md): sign-in and sign-out, login codes for `stackyard console`, and
 * the reads the Pulumi CLI's routes do not cover. The console reads everything else through the routes the CLI
 * uses, with the same authorization: a session cookie stands for the user's token (auth.ts).
 */
const STACK = '/api/stacks/{orgName}/{projectName}/{stackName}';

export const signInSchema = z.union([
  z.strictObject({ token: z.string().check(z.minLength(1), z.maxLength(1024)) }),
  z.strictObject({ code: z.string().check(z.minLength(1), z.maxLength(200)) }),
]);

/** A sign-in without a token or code has no credentials, like any other call without them. */
function hasCredential(body: unknown): boolean {
  return typeof body === 'object' && body !== null && ('token' in body || 'code' in body);
}
export const loginCodeSchema = z.strictObject({ path: z.string().check(z.minLength(1), z.maxLength(512)) });

function signedIn(ctx: RouteContext, signIn: ConsoleSignIn) {
  const secure = isHttps(ctx.request);
  const response = jsonResponse(200, {
    login: signIn.login,
    csrfToken: signIn.csrfToken,
    expiresAt: signIn.expiresAt,
    ...(signIn.next ? { next: signIn.next } : {}),
  });
  // The session is new, so it lives the full period; the server's own expiry is what counts in any case.
  response.headers['set-cookie'] = sessionSetCookie(signIn.sessionId, CONSOLE_SESSION_MS / 1000, secure);
  response.headers['cache-control'] = 'no-store';
  return response;
}

/** Cross-site forms cannot send JSON without a preflight we never answer, so sign-in cannot be forged. */
function requireJson(ctx: RouteContext): void {
  if (!/^application\/json\b/i.test(ctx.request.headers['content-type'] ?? '')) {
    throw new InvalidInputError('Send the sign-in request as JSON (Content-Type: application/json).');
  }
}

export const consoleRoutes: Route[] = [
  {
    method: 'POST',
    path: '/api/console/sessions',
    group: 'identity',
    async handle(ctx) {
      const raw = await ctx.jsonBody();
      if (!hasCredential(raw)) {
        throw new UnauthorizedError('Sign in with an access token ({"token": …}) or a `stackyard console` login code ({"code": …}).');
      }
      requireJson(ctx);
      const body = validateBody(signInSchema, raw, 'sign-in request ({"token"} or {"code"})');
      const signIn =
        'token' in body
          ? await ctx.services.console.signInWithToken(body.token, requestInfo(ctx.request))
          : await ctx.services.console.signInWithCode(body.code, requestInfo(ctx.request));
      return signedIn(ctx, signIn);
    },
  },
  {
    method: 'GET',
    path: '/api/console/session',
    group: 'identity',
    async handle(ctx) {
      const principal = await ctx.principal();
      const session = sessionCookie(ctx.request);
      const response = jsonResponse(200, {
        login: principal.login,
        admin: principal.admin,
        orgs: principal.orgs.map((name) => ({ name, ...(principal.roles[name] ? { role: principal.roles[name] } : {}) })),
        ...(session !== undefined ? { csrfToken: ctx.services.console.csrfToken(session) } : {}),
      });
      response.headers['cache-control'] = 'no-store';
      return response;
    },
  },
  {
    method: 'DELETE',
    path: '/api/console/session',
    group: 'identity',
    async handle(ctx) {
      // Authenticating first means a forged sign-out (no CSRF token) is refused like any other change.
      const principal = await ctx.principal();
      const session = sessionCookie(ctx.request);
      if (session !== undefined) await ctx.services.console.signOut(session, principal);
      const response = jsonResponse(200, {});
      response.headers['set-cookie'] = sessionSetCookie(undefined, 0, isHttps(ctx.request));
      return response;
    },
  },
  {
    method: 'POST',
    path: '/api/console/login-codes',
    group: 'identity',
    async handle(ctx) {
      const principal = await ctx.principal();
      const body = validateBody(loginCodeSchema, await ctx.jsonBody(), 'login code request');
      // The session the code opens acts with the same token as this request (a token, or a session's own).
      const token = apiToken(ctx.request);
      const source = token !== undefined ? { token } : { sessionId: sessionCookie(ctx.request)! };
      const response = jsonResponse(200, await ctx.services.console.createLoginCode(principal, body.path, source));
      response.headers['cache-control'] = 'no-store';
      return response;
    },
  },
  {
    method: 'GET',
    path: '/api/console/orgs/{orgName}/stacks',
    group: 'stacks',
    async handle(ctx) {
      const principal = await ctx.principal();
      return jsonResponse(200, { stacks: await ctx.services.console.orgStacks(principal, ctx.params.orgName!) });
    },
  },
  {
    method: 'GET',
    path: '/api/console/stacks/{orgName}/{projectName}/{stackName}',
    group: 'stacks',
    async handle(ctx) {
      const principal = await ctx.principal();
      return jsonResponse(200, await ctx.services.console.stackOverview(principal, ctx.stackRef()));
    },
  },
  // Pulumi's console read paths: one update by version, and an update's engine events.
  {
    method: 'GET',
    path: `${STACK}/updates/{version}`,
    group: 'stacks',
    async handle(ctx) {
      const principal = await ctx.principal();
      const update = await ctx.services.console.findUpdate(principal, ctx.stackRef(), ctx.params.version!);
      return jsonResponse(200, {
        ...updateInfo(update),
        status: update.status,
        dryRun: update.dryRun,
        // Still running on record, but its lease is gone: the page says it was abandoned rather than "Running".
        ...(update.abandoned ? { abandoned: true } : {}),
      });
    },
  },
  {
    method: 'GET',
    path: `${STACK}/update/{updateId}/events`,
    group: 'stacks',
    async handle(ctx) {
      const principal = await ctx.principal();
      const token = ctx.request.query.get('continuationToken');
      if (token !== null && token !== '' && !/^-?[0-9]{1,12}$/.test(token)) {
        throw new InvalidInputError('continuationToken must be the one a previous page returned.');
      }
      const after = token ? Number(token) : undefined;
      const page = await ctx.services.console.updateEvents(principal, ctx.stackRef(), ctx.params.updateId!, after);
      // Like Pulumi's: a token while more may come (the update still runs); none once every event was returned.
      return jsonResponse(200, {
        events: page.events,
        ...(page.done ? {} : { continuationToken: String(page.last ?? -1) }),
      });
    },
  },
];
