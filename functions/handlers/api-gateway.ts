import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { ApiHandler } from '../http/api.js';
import { errorResponse, finishResponse } from '../http/respond.js';
import type { HttpRequest, HttpResponse } from '../http/types.js';

/** An API Gateway HTTP API (payload v2) Lambda handler. */
export type ApiGatewayHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * The binary wire bodies of the events `serve` builds. Such an event still carries its body base64-encoded, as
 * API Gateway does, for anything that reads it, but the text is built only when read: the handler takes the bytes
 * `serve` already holds instead, so a large gzip upload is not turned into text and back into a second copy of
 * itself. (base64 gives back exactly the bytes; a text body goes through UTF-8 as in Lambda, so it is not held.)
 */
const heldBodies = new WeakMap<APIGatewayProxyEventV2, Buffer>();

/** Gives `event` the binary body `body`, base64-encoded as Lambda's event has it, encoded only if something reads it. */
export function attachBinaryBody(event: APIGatewayProxyEventV2, body: Buffer): void {
  heldBodies.set(event, body);
  event.isBase64Encoded = true;
  Object.defineProperty(event, 'body', {
    enumerable: true,
    configurable: true,
    get() {
      const text = body.toString('base64');
      Object.defineProperty(event, 'body', { value: text, enumerable: true, configurable: true, writable: true });
      return text;
    },
  });
}

/** API Gateway v2 event → the core's request. The body stays the exact wire bytes (base64 undone). */
export function requestFromEvent(event: APIGatewayProxyEventV2): HttpRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value !== undefined) headers[name.toLowerCase()] = value;
  }
  // Payload v2 moves the Cookie header into `cookies`; the core reads it as the one header browsers send.
  if (event.cookies && event.cookies.length > 0) headers.cookie = event.cookies.join('; ');
  const held = heldBodies.get(event);
  const body = held
    ? held
    : event.body === undefined || event.body === null
      ? Buffer.alloc(0)
      : Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
  return {
    method: event.requestContext.http.method.toUpperCase(),
    path: event.rawPath,
    headers,
    query: new URLSearchParams(event.rawQueryString ?? ''),
    body,
    requestId: event.requestContext.requestId,
    ...(event.requestContext.http.sourceIp ? { sourceIp: event.requestContext.http.sourceIp } : {}),
  };
}

const TEXT_TYPE = /^(application\/(json|problem\+json)|text\/)/i;

/** The core's response → the structured v2 result; compressed or binary bodies travel base64-encoded. */
export function resultFromResponse(response: HttpResponse): APIGatewayProxyStructuredResultV2 {
  const binary =
    response.headers['content-encoding'] !== undefined || !TEXT_TYPE.test(response.headers['content-type'] ?? 'text/plain');
  // Payload v2 sets cookies through `cookies`, not through a Set-Cookie header.
  const { 'set-cookie': setCookie, ...headers } = response.headers;
  return {
    statusCode: response.status,
    headers,
    ...(setCookie !== undefined ? { cookies: [setCookie] } : {}),
    body: response.body.length === 0 ? '' : response.body.toString(binary ? 'base64' : 'utf8'),
    isBase64Encoded: binary && response.body.length > 0,
  };
}

/**
 * A middy-wrapped handler serving the whole router. Middy does Lambda-level work only (the logger's Lambda
 * context); HTTP parsing, auth and error rendering are the core's, and its log lines carry the API Gateway request
 * id themselves (serve runs requests concurrently on one logger, so per-invocation logger keys would mix).
 * `resolveApi` runs per invocation but is expected to build services once per cold start.
 */
export function createApiGatewayHandler(
  logger: Logger,
  resolveApi: (event: APIGatewayProxyEventV2) => ApiHandler,
  /** Lambda-only middlewares (tracing, metrics: functions/observability.ts); serve passes none. */
  middlewares: readonly MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>[] = [],
): ApiGatewayHandler {
  const base = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
    const request = requestFromEvent(event);
    let api: ApiHandler;
    try {
      api = resolveApi(event);
    } catch (error) {
      // A misconfigured function still answers in the Pulumi error shape, with the request id to look it up by.
      return resultFromResponse(await finishResponse(errorResponse(error, request, logger), request, logger));
    }
    return resultFromResponse(await api(request));
  };
  return middy(base).use(injectLambdaContext(logger)).use([...middlewares]) as unknown as ApiGatewayHandler;
}
