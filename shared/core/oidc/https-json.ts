import type { IncomingMessage } from 'node:http';
import type { LookupFunction } from 'node:net';
import { ForbiddenDestinationError, resolveAllowedTarget } from '../hooks/ssrf.js';
import { IssuerFetchError } from './types.js';
import { type JsonFetcher } from '../kernel/options.js';

const MAX_DOCUMENT_BYTES = 256 * 1024;
const DEFAULT_TIMEOUT_MS = 5_000;

export interface HttpsJsonOptions {
  /** Allow issuers on loopback, private and link-local addresses (tests, closed networks). */
  allowPrivate: boolean;
  timeoutMs?: number;
}

/**
 * GETs a JSON document over HTTPS only, with the certificate checked against Node's trust store (plus
 * NODE_EXTRA_CA_CERTS for private issuers and tests; verification is never switched off). The issuer URL comes from
 * an organization administrator, so the host goes through the hooks' SSRF guard and the connection is pinned to the
 * checked address; redirects are not followed and the body is capped.
 */
export function httpsJsonFetcher(options: HttpsJsonOptions): JsonFetcher {
  return async (url) => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new IssuerFetchError('not a valid URL');
    }
    if (parsed.protocol !== 'https:') throw new IssuerFetchError(`${parsed.protocol}// is not allowed: issuers are fetched over https only`);
    const target = await resolveAllowedTarget(parsed.hostname, options.allowPrivate).catch((error: unknown) => {
      if (error instanceof ForbiddenDestinationError && options.allowPrivate) throw new IssuerFetchError(error.message);
      if (error instanceof ForbiddenDestinationError) {
        throw new IssuerFetchError(
          `${parsed.hostname} is (or resolves to) a private, loopback or link-local address; operators allow internal issuers with STACKYARD_OIDC_ALLOW_PRIVATE=true`,
        );
      }
      throw error;
    });
    const pinned: LookupFunction = (_host, lookupOptions, callback) => {
      if ((lookupOptions as { all?: boolean }).all) {
        (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [target]);
      } else {
        callback(null, target.address, target.family);
      }
    };
    const { request } = await import('node:https');
    const text = await new Promise<string>((resolve, reject) => {
      const outgoing = request(
        parsed,
        { method: 'GET', headers: { accept: 'application/json', 'user-agent': 'stackyard-oidc/1' }, lookup: pinned, timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS, agent: false },
        (response: IncomingMessage) => {
          if (response.statusCode !== 200) {
            response.resume();
            reject(new IssuerFetchError(`answered HTTP ${response.statusCode ?? '?'}`));
            return;
          }
          const chunks: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_DOCUMENT_BYTES) {
              response.destroy();
              reject(new IssuerFetchError(`sent more than ${MAX_DOCUMENT_BYTES} bytes`));
              return;
            }
            chunks.push(chunk);
          });
          response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
          response.on('error', (error) => reject(new IssuerFetchError(error.message)));
        },
      );
      outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${options.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms`)));
      outgoing.on('error', (error) => reject(error instanceof IssuerFetchError ? error : new IssuerFetchError(error.message)));
      outgoing.end();
    });
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new IssuerFetchError('did not answer JSON');
    }
  };
}
