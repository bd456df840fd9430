import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from './read-body.js';

/** A function the stand-in runs: gets the decoded JSON payload, returns the result (or throws: a function error). */
export type StandInFunction = (event: unknown) => unknown;

export interface Invocation {
  /** The function name or ARN exactly as the client sent it. */
  functionName: string;
  invocationType: string;
  payload: unknown;
  raw: string;
}

export interface LambdaStandIn {
  /** For AWS_ENDPOINT_URL_LAMBDA. */
  endpoint: string;
  invocations: Invocation[];
  stop(): Promise<void>;
}

/**
 * Speaks the part of the Lambda Invoke API (`POST /2015-03-31/functions/{name}/invocations`) the real
 * `@aws-sdk/client-lambda` uses: `X-Amz-Invocation-Type` `Event` is answered 202 with no body (the function still
 * runs, as Lambda would run it later), `RequestResponse` 200 with the function's result, a throwing function
 * 200 with `X-Amz-Function-Error: Unhandled`, an unknown function 404 `ResourceNotFoundException`. Functions are
 * looked up by the last `:function:<name>` part of an ARN, or by plain name.
 */
export async function startLambdaStandIn(functions: Record<string, StandInFunction>): Promise<LambdaStandIn> {
  const invocations: Invocation[] = [];
  const server: Server = createServer(async (request, response) => {
    const match = /^\/2015-03-31\/functions\/([^/]+)\/invocations(?:\?.*)?$/.exec(request.url ?? '');
    const raw = await readBody(request);
    if (request.method !== 'POST' || !match) {
      response.writeHead(404, { 'content-type': 'application/json', 'x-amzn-errortype': 'UnknownOperationException' });
      response.end(JSON.stringify({ message: 'Unknown operation' }));
      return;
    }
    const functionName = decodeURIComponent(match[1]!);
    const shortName = /:function:([^:]+)/.exec(functionName)?.[1] ?? functionName;
    const invocationType = String(request.headers['x-amz-invocation-type'] ?? 'RequestResponse');
    const handler = functions[shortName];
    if (!handler) {
      response.writeHead(404, { 'content-type': 'application/json', 'x-amzn-errortype': 'ResourceNotFoundException' });
      response.end(JSON.stringify({ Type: 'User', message: `Function not found: ${functionName}` }));
      return;
    }
    let payload: unknown;
    try {
      payload = raw === '' ? null : JSON.parse(raw);
    } catch {
      payload = raw;
    }
    invocations.push({ functionName, invocationType, payload, raw });
    let result: unknown;
    let failed: Error | undefined;
    try {
      result = await handler(payload);
    } catch (error) {
      failed = error as Error;
    }
    if (invocationType === 'Event') {
      response.writeHead(202, { 'x-amzn-requestid': 'stand-in' });
      response.end();
      return;
    }
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-amz-executed-version': '$LATEST' };
    if (failed) headers['x-amz-function-error'] = 'Unhandled';
    response.writeHead(200, headers);
    response.end(JSON.stringify(failed ? { errorMessage: failed.message, errorType: failed.name } : (result ?? null)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    invocations,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
