import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { gunzipSync, gzipSync } from 'node:zlib';
import { expect } from 'vitest';

/**
 * A client that talks to the API exactly the way the Pulumi CLI 3.248 does on the wire (pulumi-service-api.md
 * §1.2): the same headers on every call, `Content-Type: application/json` even without a body, and gzip-compressed
 * bodies on the eight routes the CLI compresses. Every response is checked against the rules the CLI relies on.
 */
export const CLI_HEADERS = {
  accept: 'application/vnd.pulumi+9',
  'content-type': 'application/json',
  'accept-encoding': 'gzip',
  'user-agent': 'pulumi-cli/1 (v3.248.0; linux)',
} as const;

/** The calls whose bodies the CLI gzips (`GzipCompress: true`). */
const GZIP_ROUTES = /\/(checkpoint|checkpointverbatim|checkpointdelta|journalentries|events\/batch|batch-encrypt|batch-decrypt|import)$/;

export type Auth = { token: string } | { updateToken: string } | { authorization: string } | undefined;

export interface CallOptions {
  auth?: Auth;
  /** JSON-serialised unless it is a Buffer (sent as the exact bytes). */
  body?: unknown;
  /** Extra or replacement headers. */
  headers?: Record<string, string>;
  /** Compress the body; defaults to what the CLI does for this path. */
  gzip?: boolean;
}

export interface WireResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The decoded (gunzipped) body text. */
  text: string;
  /** The parsed JSON body, or `undefined` when empty. */
  json: any;
}

export class PulumiWire {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });

  constructor(readonly baseUrl: string) {}

  async call(method: string, path: string, options: CallOptions = {}): Promise<WireResponse> {
    const headers: Record<string, string> = { ...CLI_HEADERS, ...authorization(options.auth), ...options.headers };
    let body: Buffer | undefined;
    if (options.body !== undefined) {
      body = Buffer.isBuffer(options.body) ? options.body : Buffer.from(JSON.stringify(options.body), 'utf8');
      if (options.gzip ?? GZIP_ROUTES.test(path)) {
        body = gzipSync(body);
        headers['content-encoding'] = 'gzip';
      }
    }
    const response = await this.send(method, path, headers, body);
    checkWireRules(method, path, response);
    return response;
  }

  close(): void {
    this.agent.destroy();
  }

  private async send(method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<WireResponse> {
    try {
      return await this.sendOnce(method, path, headers, body);
    } catch (error) {
      // A pooled keep-alive socket that the server closed as idle just as it was reused fails before any response
      // arrives. HTTP lets a client resend an idempotent request then (RFC 9110 §9.2.2), as browsers and the CLI do.
      if (!IDEMPOTENT.has(method) || !isResetBeforeResponse(error)) throw error;
      return this.sendOnce(method, path, headers, body);
    }
  }

  private sendOnce(method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<WireResponse> {
    const url = new URL(path, this.baseUrl);
    return new Promise((resolve, reject) => {
      const req = httpRequest(url, { method, headers: { ...headers, 'content-length': String(body?.length ?? 0) }, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const raw = Buffer.concat(chunks);
          const encoding = res.headers['content-encoding'];
          const decoded = encoding === 'gzip' || encoding === 'x-gzip' ? gunzipSync(raw) : raw;
          const text = decoded.toString('utf8');
          let json: unknown;
          try {
            json = text === '' ? undefined : JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  }
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

function isResetBeforeResponse(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ECONNRESET' || (error as Error).message === 'socket hang up';
}

function authorization(auth: Auth): Record<string, string> {
  if (!auth) return {};
  if ('token' in auth) return { authorization: `token ${auth.token}` };
  if ('updateToken' in auth) return { authorization: `update-token ${auth.updateToken}` };
  return { authorization: auth.authorization };
}

/**
 * What must hold for every response, whatever the route: a request id, no Content-Encoding other than gzip, and
 * errors as JSON whose `code` equals the HTTP status (the CLI takes the status from `code`).
 */
function checkWireRules(method: string, path: string, response: WireResponse): void {
  const where = `${method} ${path} -> ${response.status} ${response.text.slice(0, 300)}`;
  expect(response.headers['x-pulumi-request-id'], where).toMatch(/\S/);
  expect([undefined, 'gzip'], where).toContain(response.headers['content-encoding']);
  if (response.status >= 400 && method !== 'HEAD') {
    expect(response.json, where).toMatchObject({ code: response.status, message: expect.stringMatching(/\S/) });
  }
}

/** Asserts a 2xx and returns the parsed body. */
export function ok(response: WireResponse, status = 200): any {
  expect(response.status, response.text.slice(0, 500)).toBe(status);
  return response.json;
}

/** Asserts an error with this status; returns its message. */
export function failed(response: WireResponse, status: number): string {
  expect(response.status, response.text.slice(0, 500)).toBe(status);
  return response.json.message as string;
}
