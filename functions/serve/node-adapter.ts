import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { attachBinaryBody, type ApiGatewayHandler } from '../handlers/api-gateway.js';
import { MAX_REQUEST_BODY_BYTES } from '../http/limits.js';
import { MalformedRequestError, type ConnectionTracker } from './connections.js';

/** Past this much an oversize upload is cut off instead of drained (the 413 is then sent before closing). */
const MAX_DRAIN_BYTES = 64 * 1024 * 1024;

/** How API Gateway decides: bodies that are not plain text travel base64-encoded in the event. */
const TEXT_TYPE = /^(application\/(json|x-www-form-urlencoded)|text\/)/i;

interface ReadBody {
  /** At most `MAX_REQUEST_BODY_BYTES + 1` bytes: enough for the core to see the cap was passed and answer 413. */
  body: Buffer;
  truncated: boolean;
}

async function readWholeBody(request: IncomingMessage): Promise<ReadBody> {
  const chunks: Buffer[] = [];
  let kept = 0;
  let seen = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    seen += chunk.length;
    if (kept <= MAX_REQUEST_BODY_BYTES) {
      const room = MAX_REQUEST_BODY_BYTES + 1 - kept;
      chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      kept += Math.min(room, chunk.length);
    }
    if (seen > MAX_DRAIN_BYTES) break;
  }
  return { body: Buffer.concat(chunks, kept), truncated: seen > kept };
}

/** The body, unless the tracker hears first that its framing is broken (then the stream would never end). */
function readBody(request: IncomingMessage, bodyFailed: Promise<never> | undefined): Promise<ReadBody> {
  const reading = readWholeBody(request);
  if (!bodyFailed) return reading;
  // The losing read is left to the connection's close; its failure then is not this request's answer.
  reading.catch(() => undefined);
  return Promise.race([reading, bodyFailed]);
}

function errorResult(status: number, requestId: string, message: string): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: status,
    headers: { 'content-type': 'application/json', 'x-pulumi-request-id': requestId },
    body: JSON.stringify({ code: status, message }),
  };
}

function joinHeaders(request: IncomingMessage): { headers: Record<string, string>; cookies: string[] } {
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (const [name, value] of Object.entries(request.headersDistinct)) {
    if (!value) continue;
    if (name === 'cookie') cookies.push(...value.flatMap((v) => v.split(';').map((c) => c.trim())));
    else headers[name] = value.join(',');
  }
  return { headers, cookies };
}

/** Common Log Format time, as `requestContext.time` carries it (e.g. `12/Mar/2026:19:03:58 +0000`). */
function clfTime(date: Date): string {
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const pad = (n: number) => String(n).padStart(2, '0');
  return (
    `${pad(date.getUTCDate())}/${months[date.getUTCMonth()]}/${date.getUTCFullYear()}:` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`
  );
}

/** node:http request → the payload v2 event API Gateway would send for it. */
export function eventFromRequest(request: IncomingMessage, body: Buffer, requestId: string = randomUUID()): APIGatewayProxyEventV2 {
  const url = new URL(request.url ?? '/', 'http://serve.invalid');
  const { headers, cookies } = joinHeaders(request);
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;
  const binary = headers['content-encoding'] !== undefined || !TEXT_TYPE.test(headers['content-type'] ?? 'text/plain');
  const now = new Date();
  const host = headers.host ?? 'localhost';
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    ...(cookies.length > 0 ? { cookies } : {}),
    headers,
    ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
    requestContext: {
      accountId: 'serve',
      apiId: 'serve',
      domainName: host,
      domainPrefix: host.split('.')[0]!,
      http: {
        method: request.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? '',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: '$default',
      stage: '$default',
      time: clfTime(now),
      timeEpoch: now.getTime(),
    },
    ...(body.length > 0 && !binary ? { body: body.toString('utf8') } : {}),
    isBase64Encoded: false,
  };
  if (body.length > 0 && binary) attachBinaryBody(event, body);
  return event;
}

function lambdaContext(requestId: string): Context {
  const unsupported = () => {
    throw new Error('serve runs handlers as async functions; callback-style completion is not supported');
  };
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'stackyard-serve',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:stackyard-serve',
    memoryLimitInMB: '0',
    awsRequestId: requestId,
    logGroupName: 'stackyard-serve',
    logStreamName: 'stackyard-serve',
    getRemainingTimeInMillis: () => 28_000,
    done: unsupported,
    fail: unsupported,
    succeed: unsupported,
  };
}

function writeResult(response: ServerResponse, result: APIGatewayProxyStructuredResultV2, close: boolean): void {
  const body = result.body ? Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  if (result.cookies && result.cookies.length > 0) headers['set-cookie'] = result.cookies;
  headers['content-length'] = String(body.length);
  if (close) headers.connection = 'close';
  response.writeHead(result.statusCode ?? 200, headers);
  response.end(body);
}

/**
 * A node:http listener that does what API Gateway + Lambda do: build the v2 event (same body cap), pick the handler
 * the route table binds the request to, and write its structured result back. The handler may still be on its way
 * (a request that arrives while `serve` starts waits for it), and the tracker hears of every request, so shutdown
 * and framing errors can wait for the answer.
 */
export function createNodeListener(
  pickHandler: (method: string, path: string) => ApiGatewayHandler | Promise<ApiGatewayHandler>,
  tracker?: ConnectionTracker,
): RequestListener {
  return (request, response) => {
    const requestId = randomUUID();
    const bodyFailed = tracker?.begin(request, response);
    void (async () => {
      const { body, truncated } = await readBody(request, bodyFailed);
      const event = eventFromRequest(request, body, requestId);
      const handler = await pickHandler(event.requestContext.http.method.toUpperCase(), event.rawPath);
      const result = await handler(event, lambdaContext(requestId));
      writeResult(response, result, truncated || tracker?.draining === true);
    })().catch((error: unknown) => {
      // The handlers render every error themselves; reaching here means the connection itself failed.
      if (response.headersSent) {
        response.destroy();
        return;
      }
      if (error instanceof MalformedRequestError) {
        writeResult(response, errorResult(400, requestId, `${error.message} Request id ${requestId}.`), true);
        return;
      }
      const message = `serve could not handle the request (${(error as Error)?.message ?? 'unknown error'}); request id ${requestId}.`;
      writeResult(response, errorResult(500, requestId, message), true);
    });
  };
}
