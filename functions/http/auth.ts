import { UnauthorizedError } from '../../shared/core/errors.js';
import type { Principal, RequestInfo } from '../../shared/core/kernel/principal.js';
import type { Services } from '../../shared/core/compose/types.js';
import { CSRF_HEADER, isSafeMethod, sessionCookie } from './console-session.js';
import type { HttpRequest } from './types.js';

/** The two schemes of the Pulumi service: `token <API token>` and `update-token <lease token>`. */
export type AuthScheme = 'token' | 'update-token';

function credential(request: HttpRequest, scheme: AuthScheme): string | undefined {
  const header = request.headers.authorization?.trim();
  if (!header) return undefined;
  const space = header.indexOf(' ');
  if (space < 0 || header.slice(0, space).toLowerCase() !== scheme) return undefined;
  const value = header.slice(space + 1).trim();
  return value === '' ? undefined : value;
}

/** The API token of `Authorization: token <t>`, if the request carries one. */
export function apiToken(request: HttpRequest): string | undefined {
  return credential(request, 'token');
}

/**
 * The caller of an API-token route: `Authorization: token <t>`, or else the web console's session cookie, which
 * must come with the session's CSRF token on anything but GET and HEAD. 401 when neither is there or valid.
 */
export async function authenticate(request: HttpRequest, services: Pick<Services, 'identity' | 'console'>): Promise<Principal> {
  const token = credential(request, 'token');
  if (token !== undefined) return services.identity.authenticate(token, requestInfo(request));
  const session = sessionCookie(request);
  if (session !== undefined) {
    const principal = await services.console.sessionPrincipal(session);
    if (!isSafeMethod(request.method)) services.console.checkCsrf(session, request.headers[CSRF_HEADER]);
    return principal;
  }
  throw new UnauthorizedError(
    'No credentials provided: send Authorization: token <access token> (pulumi login / stackyard login with a ' +
      'token from your administrator).',
  );
}

/** What the audit log records of a request: its id, source address and user agent. */
export function requestInfo(request: HttpRequest): RequestInfo {
  return {
    id: request.requestId,
    ...(request.sourceIp ? { sourceIp: request.sourceIp } : {}),
    ...(request.headers['user-agent'] ? { userAgent: request.headers['user-agent'] } : {}),
    ...(request.route ? { route: request.route } : {}),
  };
}

/**
 * `Authorization: update-token <t>` for the calls made during an update. Only a missing one is a 401; whether the
 * token is live for this update is the update service's question and a 403, which the CLI reads as "lease lost".
 */
export function updateToken(request: HttpRequest): string {
  const token = credential(request, 'update-token');
  if (token === undefined) {
    throw new UnauthorizedError(
      'This call needs the update token returned by starting the update: send Authorization: update-token <token>.',
    );
  }
  return token;
}
