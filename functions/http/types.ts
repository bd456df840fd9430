/**
 * The small, framework-free request/response model the HTTP core speaks. The Lambda adapter and `serve` both
 * translate to and from it, so the wire rules (decoding, errors, compression, caps) exist once.
 */
export interface HttpRequest {
  method: string;
  /** The path without query string, e.g. `/api/stacks/acme/proj/dev`. */
  path: string;
  /** Header names lower-cased; repeated headers joined with `,` (as API Gateway does). */
  headers: Readonly<Record<string, string | undefined>>;
  query: URLSearchParams;
  /** The body bytes exactly as they arrived on the wire (still gzip-compressed when `Content-Encoding: gzip`). */
  body: Buffer;
  /** Echoed as `X-Pulumi-Request-ID` and written into every log line of the request. */
  requestId: string;
  /** The caller's address as API Gateway (or serve's socket) saw it; for the audit log. */
  sourceIp?: string;
  /** The route the router matched, as the table spells it (`GET /api/user`); set by the router, for the audit log. */
  route?: string;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}
