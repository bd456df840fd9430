import type { IncomingMessage } from 'node:http';
import type { LookupFunction } from 'node:net';
import type { SendResult } from '../kernel/options.js';
import { ForbiddenDestinationError, resolveAllowedTarget } from './ssrf.js';

const MAX_RESPONSE_BYTES = 64 * 1024;

export interface HttpSendOptions {
  timeoutMs: number;
  allowPrivate: boolean;
}

/** Where a URL points, without its query string or credentials, for error messages and logs. */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return 'an invalid URL';
  }
}

/**
 * POSTs `body` to `url` through the SSRF guard: the connection goes to the address that was checked, redirects are
 * never followed (a 3xx is a failed attempt), and the whole exchange is bounded by `timeoutMs`.
 */
export async function postJson(url: string, body: string, headers: Record<string, string>, options: HttpSendOptions): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, latencyMs: 0, error: 'the hook URL is not valid' };
  }
  const secure = parsed.protocol === 'https:';
  if (!secure && !(parsed.protocol === 'http:' && options.allowPrivate)) {
    return { ok: false, latencyMs: 0, error: 'hook URLs must use https' };
  }
  let target;
  try {
    target = await resolveAllowedTarget(parsed.hostname, options.allowPrivate);
  } catch (error) {
    const reason = error instanceof ForbiddenDestinationError ? error.message : String(error);
    return { ok: false, latencyMs: elapsed(), error: `refused: ${reason}` };
  }
  const pinned: LookupFunction = (_host, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all) {
      (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [target]);
    } else {
      callback(null, target.address, target.family);
    }
  };
  // Loaded per delivery: most processes that can deliver hooks (every CLI command on local storage) never do.
  const { request: send } = secure ? await import('node:https') : await import('node:http');
  return new Promise<SendResult>((resolve) => {
    const request = send(
      parsed,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'stackyard-hooks/1', ...headers, 'content-length': Buffer.byteLength(body) },
        lookup: pinned,
        timeout: options.timeoutMs,
        agent: false,
      },
      (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_RESPONSE_BYTES) chunks.push(chunk);
        });
        response.on('end', () => {
          clearTimeout(deadline);
          const code = response.statusCode ?? 0;
          const text = Buffer.concat(chunks).toString('utf8');
          if (code >= 300 && code < 400) {
            resolve({ ok: false, latencyMs: elapsed(), responseCode: code, error: 'redirects are not followed' });
          } else {
            resolve({ ok: code >= 200 && code < 300, latencyMs: elapsed(), responseCode: code, body: text, ...(code >= 300 ? { error: `answered ${code}` } : {}) });
          }
        });
        response.on('error', (error) => {
          clearTimeout(deadline);
          resolve({ ok: false, latencyMs: elapsed(), responseCode: response.statusCode, error: error.message });
        });
      },
    );
    // `timeout` only covers idle sockets; this bounds the whole exchange, including a slow trickle of bytes.
    const deadline = setTimeout(() => request.destroy(new Error(`timed out after ${options.timeoutMs} ms`)), options.timeoutMs);
    request.on('timeout', () => request.destroy(new Error(`timed out after ${options.timeoutMs} ms`)));
    request.on('error', (error) => {
      clearTimeout(deadline);
      resolve({ ok: false, latencyMs: elapsed(), error: `${describeUrl(url)}: ${error.message}` });
    });
    request.end(body);
  });
}
