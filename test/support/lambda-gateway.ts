import { fork, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { routeGroup } from '../../functions/http/api.js';
import type { HandlerGroup } from '../../functions/http/router.js';
import { captureStderr, stopChild } from './processes.js';

const HOST = fileURLToPath(new URL('./lambda-host.mjs', import.meta.url));

/** A request carrying this header goes to the function it names instead: a route table out of step with the code. */
export const FORCE_FUNCTION_HEADER = 'x-gateway-function';

/** A loopback stand-in for API Gateway in front of one process per Lambda function bundle. */
export interface LambdaGateway {
  url: string;
  /** Requests each function answered. */
  invocations: Record<HandlerGroup, number>;
  stop(): Promise<void>;
}

interface FunctionHost {
  child: ChildProcess;
  invoke(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2>;
}

/**
 * Starts one Node process per function, each importing only its own bundle with only `env`, and an HTTP server that
 * routes every request as the deployment's API Gateway does: a route to its group's function, anything else
 * (`$default`) to identity. Events are HTTP API payload v2, bodies base64-encoded.
 */
export async function startLambdaGateway(
  bundles: Record<HandlerGroup, string>,
  env: (url: string) => Record<string, string>,
): Promise<LambdaGateway> {
  const hosts = {} as Record<HandlerGroup, FunctionHost>;
  const invocations = {} as Record<HandlerGroup, number>;
  let sequence = 0;
  // Idle connections stay open as serve's do (functions/serve/server.ts): Node's 5 s default closes one a client is
  // about to reuse after a slow step, which the client sees as ECONNRESET.
  const server = createServer({ keepAliveTimeout: 65_000, headersTimeout: 66_000 }, (req, res) => {
    void (async () => {
      const body = await readAll(req);
      const url = new URL(req.url ?? '/', 'http://gateway');
      const forced = req.headers[FORCE_FUNCTION_HEADER] as HandlerGroup | undefined;
      const group = forced && forced in hosts ? forced : (routeGroup(req.method ?? 'GET', url.pathname) ?? 'identity');
      invocations[group] += 1;
      const result = await hosts[group].invoke(eventOf(req, url, body, `gateway-${(sequence += 1)}`));
      writeResult(res, result);
    })().catch((error: unknown) => {
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 502, message: `gateway: ${String(error)}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const stop = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await Promise.allSettled(Object.values(hosts).map((host) => stopChild(host.child)));
  };

  const started = await Promise.allSettled(
    (Object.entries(bundles) as [HandlerGroup, string][]).map(async ([group, file]) => {
      hosts[group] = await startHost(file, { ...env(url), STACKYARD_TEST_FUNCTION: group });
      invocations[group] = 0;
    }),
  );
  const failure = started.find((result) => result.status === 'rejected');
  if (failure) {
    await stop();
    throw failure.reason;
  }
  return { url, invocations, stop };
}

async function startHost(file: string, env: Record<string, string>): Promise<FunctionHost> {
  const child = fork(HOST, [file], { env, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  const stderr = captureStderr(child);
  const pending = new Map<number, { resolve: (r: APIGatewayProxyStructuredResultV2) => void; reject: (e: Error) => void }>();
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${file} exited (${code}) before it was ready: ${stderr()}`)));
    child.on('message', (message: { ready?: boolean; id?: number; result?: APIGatewayProxyStructuredResultV2; error?: string }) => {
      if (message.ready) return resolve();
      const waiting = pending.get(message.id!);
      pending.delete(message.id!);
      if (message.error !== undefined) waiting?.reject(new Error(message.error));
      else waiting?.resolve(message.result!);
    });
  });
  child.on('exit', (code) => {
    for (const waiting of pending.values()) waiting.reject(new Error(`${file} exited (${code}): ${stderr()}`));
    pending.clear();
  });
  let next = 0;
  return {
    child,
    invoke(event) {
      const id = (next += 1);
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        child.send({ id, event });
      });
    },
  };
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function eventOf(req: IncomingMessage, url: URL, body: Buffer, requestId: string): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (name !== 'cookie' && name !== FORCE_FUNCTION_HEADER && value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const now = new Date();
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    ...(req.headers.cookie ? { cookies: req.headers.cookie.split(/;\s*/) } : {}),
    requestContext: {
      accountId: '123456789012',
      apiId: 'gateway',
      domainName: headers.host ?? '127.0.0.1',
      domainPrefix: 'gateway',
      http: { method: req.method ?? 'GET', path: url.pathname, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: headers['user-agent'] ?? '' },
      requestId,
      routeKey: '$default',
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length > 0 ? { body: body.toString('base64') } : {}),
    isBase64Encoded: body.length > 0,
  };
}

function writeResult(res: ServerResponse, result: APIGatewayProxyStructuredResultV2): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  if (result.cookies && result.cookies.length > 0) headers['set-cookie'] = result.cookies;
  const body = result.body ? Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
  res.writeHead(result.statusCode ?? 200, { ...headers, 'content-length': String(body.length) });
  res.end(body);
}
