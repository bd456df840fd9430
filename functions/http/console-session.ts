import type { HttpRequest } from './types.js';

/** The console's session cookie. HttpOnly and SameSite=Strict always; Secure whenever the origin is https. */
export const SESSION_COOKIE = 'stackyard-session';
/** Where the console page sends its session's CSRF token on every request that changes state. */
export const CSRF_HEADER = 'x-stackyard-csrf';

/** The value of the session cookie, if the request carries one. */
export function sessionCookie(request: Pick<HttpRequest, 'headers'>): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(/;\s*/)) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return value === '' ? undefined : value;
    }
  }
  return undefined;
}

/**
 * Whether the browser reached us over https: API Gateway always says so in X-Forwarded-Proto, and so must a TLS
 * proxy in front of `stackyard serve` (docs/console.md). A spoofed header can only add `Secure`.
 */
export function isHttps(request: HttpRequest): boolean {
  return request.headers['x-forwarded-proto']?.split(',')[0]?.trim().toLowerCase() === 'https';
}

/** `Set-Cookie` for a new session, or (`value` undefined) one that makes the browser forget it. */
export function sessionSetCookie(value: string | undefined, maxAgeSeconds: number, secure: boolean): string {
  return [
    `${SESSION_COOKIE}=${value ?? ''}`,
    'Path=/',
    `Max-Age=${value === undefined ? 0 : Math.max(0, Math.floor(maxAgeSeconds))}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

/** Requests that read only; anything else from a browser session must carry the CSRF token. */
export function isSafeMethod(method: string): boolean {
  return method === 'GET' || method === 'HEAD';
}
