import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { DiagnosticsError, isDomainError, UnavailableError } from '../../shared/core/errors.js';
import { MAX_RESPONSE_BODY_BYTES, responseTooLarge } from './limits.js';
import type { HttpRequest, HttpResponse } from './types.js';

const gzipAsync = promisify(gzip);

/** Below this size gzip saves less than its header and CPU cost. */
export const GZIP_MIN_BYTES = 1024;

/** Structured log calls the core makes; Powertools' Logger satisfies it. Never pass tokens, secrets or bodies. */
export interface ApiLogger {
  error(message: string, attributes: Record<string, unknown>): void;
  warn(message: string, attributes: Record<string, unknown>): void;
  info(message: string, attributes: Record<string, unknown>): void;
}

export function jsonResponse(status: number, body: unknown): HttpResponse {
  return {
    status,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify(body), 'utf8'),
  };
}

/** For routes whose response the CLI ignores; `{}` rather than nothing, so any JSON decoder is satisfied too. */
export function okResponse(): HttpResponse {
  return jsonResponse(200, {});
}

export function noContentResponse(status = 200): HttpResponse {
  return { status, headers: {}, body: Buffer.alloc(0) };
}

/**
 * The one error renderer. A domain error is its own status with `{"code": <status>, "message"}` (the Pulumi CLI
 * reads the status from `code`, not from HTTP), plus `reason` when the error names one. Anything else is a bug: logged with the request id (never with
 * bodies or headers) and answered with an opaque 500 that names the request id.
 */
export function errorResponse(error: unknown, request: Pick<HttpRequest, 'requestId' | 'method' | 'path'>, logger: ApiLogger): HttpResponse {
  if (isDomainError(error)) {
    if (error.status >= 500) {
      logger.warn('dependency unavailable', { requestId: request.requestId, error: { name: error.name, message: error.message } });
    }
    const diagnostics = error instanceof DiagnosticsError ? { diagnostics: error.diagnostics } : {};
    // A refusal a client acts on names its reason beside the numeric code the Pulumi CLI decodes (approvals).
    const reason = 'reason' in error && typeof error.reason === 'string' ? { reason: error.reason } : {};
    const response = jsonResponse(error.status, { code: error.status, ...reason, message: error.message, ...diagnostics });
    // Every retryable refusal says when to come back (RFC 9110 §10.2.3, in seconds).
    if (error instanceof UnavailableError) response.headers['retry-after'] = String(error.retryAfterSeconds);
    return response;
  }
  logger.error('unhandled error', {
    requestId: request.requestId,
    method: request.method,
    // Paths hold only names and ids (never tokens), and say where it failed.
    path: request.path,
    error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : { name: typeof error },
  });
  return jsonResponse(500, {
    code: 500,
    message: `Internal server error (request id ${request.requestId}). Retry; if it persists, give this id to your administrator.`,
  });
}

/** Whether the client accepts gzip (a `gzip` or `x-gzip` token not switched off with `q=0`). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  return header.split(',').some((part) => {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (name !== 'gzip' && name !== 'x-gzip' && name !== '*') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/**
 * Final touches on every response: gzip when the client accepts it and it is worth it (never any other
 * Content-Encoding: the CLI fails on anything but gzip), `X-Pulumi-Request-ID`, and the response cap.
 */
export async function finishResponse(response: HttpResponse, request: HttpRequest, logger: ApiLogger): Promise<HttpResponse> {
  let { body } = response;
  const headers: Record<string, string> = { ...response.headers, 'x-pulumi-request-id': request.requestId };
  delete headers['content-encoding'];
  if (body.length >= GZIP_MIN_BYTES) {
    headers.vary = 'Accept-Encoding';
    if (acceptsGzip(request.headers['accept-encoding'])) {
      body = await gzipAsync(body);
      headers['content-encoding'] = 'gzip';
    }
  }
  if (body.length > MAX_RESPONSE_BODY_BYTES) {
    return finishResponse(errorResponse(responseTooLarge(body.length), request, logger), request, logger);
  }
  return { status: response.status, headers, body };
}
