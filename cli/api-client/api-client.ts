/**
 * The one HTTP client for a Stackyard service (the Pulumi service API plus our admin routes). It sends the headers
 * the Pulumi CLI sends, gzips the bodies the Pulumi CLI gzips, retries what is safe to retry, and turns every error
 * answer into an `ApiError` carrying the status from the body's `code` (pulumi-service-api.md §1.2–§1.4).
 */
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { ApiError } from './api-error.js';

const gzipAsync = promisify(gzip);

declare const __STACKYARD_VERSION__: string | undefined;
const VERSION = typeof __STACKYARD_VERSION__ === 'string' ? __STACKYARD_VERSION__ : 'dev';

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ApiCall {
  method: HttpMethod;
  /** Starts with `/api/`; path segments are names the server's rules keep path-safe. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** A form-encoded body (`application/x-www-form-urlencoded`) instead of `body`: the OIDC token exchange's. */
  form?: Record<string, string>;
  /** A text body sent as it is (ESC's YAML definitions) instead of `body`. */
  text?: { contentType: string; data: string };
  /** Extra request headers (ESC's `ETag` on a save). */
  headers?: Record<string, string>;
  /** Send the body gzip-compressed (`Content-Encoding: gzip`), as the Pulumi CLI does for large bodies. */
  gzip?: boolean;
  /** Authenticate with an update's lease token (`update-token …`) instead of the API token. */
  updateToken?: string;
  /** The call is idempotent: retry on network errors and 5xx like GETs. */
  idempotent?: boolean;
  /** What the call does, for error messages (`start update`, `create stack`, …). */
  operation?: string;
}

export interface ApiClientOptions {
  fetch?: typeof fetch;
  /** Delay between retries; tests pass a no-op. */
  sleep?: (ms: number) => Promise<void>;
  /** Most attempts of a retryable call (default 10). */
  attempts?: number;
  /** Most time spent waiting between attempts of one call (default 60 s, `STACKYARD_RETRY_BUDGET_SECONDS`). */
  retryBudgetMs?: number;
  /** Where "retrying in …" notices go (default: stderr). */
  notify?: (message: string) => void;
  /** Random number in [0, 1) for jitter; tests pin it. */
  random?: () => number;
}

/**
 * Which calls are retried (docs/cli.md, "Retries"): GET and HEAD, and calls marked `idempotent` — every
 * update-token call (checkpoint, verbatim, delta and journal saves, events, renew, complete: the service makes each
 * safe to repeat) and the few API calls that are (cancel, encrypt, decrypt). Retried on network errors, 429 and 5xx.
 */
const DEFAULT_ATTEMPTS = 10;
const DEFAULT_RETRY_BUDGET_MS = 60_000;
const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;

/** Trims trailing slashes, as `pulumi login` does, so `https://host/` and `https://host` are one backend. */
export function normalizeServiceUrl(url: string): string {
  return url.replace(/\/+$/, '');
}

export class ApiClient {
  readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly attempts: number;
  private readonly retryBudgetMs: number;
  private readonly notify: (message: string) => void;
  private readonly random: () => number;

  constructor(
    baseUrl: string,
    private readonly token: string | undefined,
    options: ApiClientOptions = {},
  ) {
    this.baseUrl = normalizeServiceUrl(baseUrl);
    this.fetchImpl = options.fetch ?? fetch;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.attempts = options.attempts ?? DEFAULT_ATTEMPTS;
    const budgetSeconds = Number(process.env.STACKYARD_RETRY_BUDGET_SECONDS);
    this.retryBudgetMs = options.retryBudgetMs ?? (Number.isFinite(budgetSeconds) && budgetSeconds >= 0 ? budgetSeconds * 1000 : DEFAULT_RETRY_BUDGET_MS);
    this.notify = options.notify ?? ((message) => process.stderr.write(`${message}\n`));
    this.random = options.random ?? Math.random;
  }

  /** Performs the call and returns the decoded JSON body (`undefined` for an empty body). */
  async request<T>(call: ApiCall): Promise<T> {
    return (await decodeBody(await this.exchange(call))) as T;
  }

  /** Performs the call and returns the body as text with the response's headers (ESC's YAML definitions and etags). */
  async requestText(call: ApiCall): Promise<{ text: string; headers: Headers }> {
    const response = await this.exchange(call);
    return { text: await response.text(), headers: response.headers };
  }

  /** Sends the call, retrying what is safe to retry, and returns the first successful response. */
  private async exchange(call: ApiCall): Promise<Response> {
    const url = this.url(call);
    const headers: Record<string, string> = {
      accept: 'application/vnd.pulumi+9',
      'accept-encoding': 'gzip',
      'content-type': 'application/json',
      'user-agent': `stackyard-cli/1 (${VERSION}; ${process.platform})`,
      ...call.headers,
    };
    const auth = call.updateToken ? `update-token ${call.updateToken}` : this.token ? `token ${this.token}` : undefined;
    if (auth) headers.authorization = auth;
    let body: Buffer | undefined;
    if (call.form !== undefined) {
      body = Buffer.from(new URLSearchParams(call.form).toString(), 'utf8');
      headers['content-type'] = 'application/x-www-form-urlencoded';
    } else if (call.text !== undefined) {
      body = Buffer.from(call.text.data, 'utf8');
      headers['content-type'] = call.text.contentType;
    } else if (call.body !== undefined) {
      body = Buffer.from(JSON.stringify(call.body), 'utf8');
      if (call.gzip) {
        body = await gzipAsync(body);
        headers['content-encoding'] = 'gzip';
      }
    }
    const retryable = call.method === 'GET' || call.method === 'HEAD' || call.idempotent === true;
    const attempts = retryable ? this.attempts : 1;
    const what = call.operation ?? `${call.method} ${call.path}`;
    let waited = 0;
    /** Waits before the next attempt, or answers false when the attempts or the time budget are spent. */
    const pause = async (attempt: number, reason: string, retryAfterMs: number | undefined): Promise<boolean> => {
      if (attempt >= attempts) return false;
      // Full jitter on an exponential step, so clients that failed together do not come back together; a
      // Retry-After is honoured as a floor, with a little jitter on top for the same reason.
      const step = Math.min(BASE_DELAY_MS * 2 ** (attempt - 1), MAX_DELAY_MS);
      const delay = Math.round(
        retryAfterMs === undefined ? step / 2 + (this.random() * step) / 2 : retryAfterMs + this.random() * BASE_DELAY_MS,
      );
      if (waited + delay > this.retryBudgetMs) return false;
      this.notify(
        `${reason}; retrying ${what} in ${(delay / 1000).toFixed(1)} s (attempt ${attempt + 1} of at most ${attempts}, ` +
          `${Math.round((this.retryBudgetMs - waited) / 1000)} s of retries left).`,
      );
      waited += delay;
      await this.sleep(delay);
      return true;
    };
    for (let attempt = 1; ; attempt++) {
      let response: Response;
      try {
        response = await this.fetchImpl(url, { method: call.method, headers, body: body === undefined ? undefined : new Uint8Array(body) });
      } catch (error) {
        const cause = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
        if (await pause(attempt, `Cannot reach ${this.baseUrl} (${cause})`, undefined)) continue;
        throw new ApiError(0, `cannot reach ${this.baseUrl}: ${cause}`, undefined, call.operation);
      }
      if (response.status < 400) return response;
      const error = await toApiError(response, call.operation);
      const transient = error.status >= 500 || error.status === 429;
      if (transient && (await pause(attempt, `${this.baseUrl} answered ${error.status} (${error.message})`, retryAfter(response)))) {
        continue;
      }
      throw error;
    }
  }

  /**
   * Moves a file to or from a URL the service handed out (a pack's upload or download location): bytes, not JSON.
   * The API token goes only to the service's own origin, never to a foreign host such as a presigned S3 URL. Retried
   * as Pulumi retries these (every method: the PUT of one object is safe to repeat).
   */
  async transfer(call: { method: 'GET' | 'PUT'; url: string; body?: Buffer; headers?: Record<string, string>; operation: string }): Promise<Buffer> {
    const headers: Record<string, string> = { 'user-agent': `stackyard-cli/1 (${VERSION}; ${process.platform})`, ...call.headers };
    if (this.token && new URL(call.url, this.baseUrl).origin === new URL(this.baseUrl).origin) headers.authorization = `token ${this.token}`;
    const target = new URL(call.url, this.baseUrl).href;
    for (let attempt = 1; ; attempt++) {
      let failure: string;
      try {
        const response = await this.fetchImpl(target, { method: call.method, headers, body: call.body === undefined ? undefined : new Uint8Array(call.body) });
        if (response.ok) return Buffer.from(await response.arrayBuffer());
        const error = await toApiError(response, call.operation);
        if (error.status < 500 && error.status !== 429) throw error;
        failure = `${error.status} (${error.message})`;
      } catch (error) {
        if (error instanceof ApiError) throw error;
        failure = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
      }
      if (attempt >= Math.min(this.attempts, 3)) throw new ApiError(0, `${call.operation} failed: ${failure}`, undefined, call.operation);
      await this.sleep(BASE_DELAY_MS * attempt);
    }
  }

  private url(call: ApiCall): string {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(call.query ?? {})) {
      if (value !== undefined) params.set(key, String(value));
    }
    const query = params.toString();
    return `${this.baseUrl}${call.path}${query ? `?${query}` : ''}`;
  }
}

/** `Retry-After` in seconds (an HTTP date is not worth parsing from our own service), in milliseconds. */
function retryAfter(response: Response): number | undefined {
  const header = response.headers.get('retry-after');
  const seconds = header === null || header.trim() === '' ? NaN : Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}

async function decodeBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(response.status, `the service answered with a body that is not JSON: ${text.slice(0, 200)}`);
  }
}

/** Pulumi's rule: a JSON body's `code` wins over the HTTP status; a non-JSON body is the message as it is. */
async function toApiError(response: Response, operation: string | undefined): Promise<ApiError> {
  const requestId = response.headers.get('x-pulumi-request-id') ?? undefined;
  const text = (await response.text().catch(() => '')).trim();
  let status = response.status;
  let message = text || response.statusText || `HTTP ${response.status}`;
  let code: string | undefined;
  let diagnostics: unknown[] | undefined;
  try {
    const parsed = JSON.parse(text) as { code?: unknown; reason?: unknown; message?: unknown; diagnostics?: unknown };
    if (parsed !== null && typeof parsed === 'object') {
      if (typeof parsed.code === 'number' && parsed.code > 0) status = parsed.code;
      if (typeof parsed.code === 'string' && parsed.code !== '') code = parsed.code;
      // The service answers a refusal's name in `reason` beside the numeric code (APPROVALS-API.md).
      if (typeof parsed.reason === 'string' && parsed.reason !== '') code = parsed.reason;
      if (typeof parsed.message === 'string' && parsed.message !== '') message = parsed.message;
      if (Array.isArray(parsed.diagnostics)) diagnostics = parsed.diagnostics;
    }
  } catch {
    // Not JSON: keep the HTTP status and the raw text.
  }
  return new ApiError(status, message, requestId, operation, code, diagnostics);
}
