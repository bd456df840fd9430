import { sessionCookie } from './console-session.js';
import type { HttpRequest } from './types.js';

/**
 * One line per request, written after the response is ready: what was asked, which route answered, how, how fast,
 * and who asked. Never a token, a header value or a body: the credential is named by its scheme only.
 */
export interface AccessLogEntry {
  method: string;
  /** The route template that served the request (`PATCH /api/stacks/{orgName}/…/checkpoint`), or `$default`. */
  route: string;
  status: number;
  durationMs: number;
  requestId: string;
  /** The authenticated user's login; `null` for update-token calls and unauthenticated requests. */
  principal: string | null;
  /** The Authorization scheme the request used (`token`, `update-token`), `console-session` (the web console's cookie), or `none`. */
  credential: string;
}

export type AccessLog = (entry: AccessLogEntry) => void;

const KNOWN_SCHEMES = new Set(['token', 'update-token', 'bearer']);

/** The Authorization scheme, lower-cased, when it is one we know; never anything after it. */
export function credentialScheme(request: Pick<HttpRequest, 'headers'>): string {
  const header = request.headers.authorization?.trim();
  if (!header) return sessionCookie(request) !== undefined ? 'console-session' : 'none';
  const scheme = header.split(/\s+/, 1)[0]!.toLowerCase();
  return KNOWN_SCHEMES.has(scheme) ? scheme : 'other';
}
