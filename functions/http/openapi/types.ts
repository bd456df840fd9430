import type * as z from 'zod/mini';

/** The shapes operations.ts and environment-operations.ts describe routes with. */

/** How a route authenticates (document.ts turns these into OpenAPI security requirements). */
export type OperationAuth =
  /** `Authorization: token <API token>`, or the console's session cookie (+ CSRF header on changes). */
  | 'token'
  /** `Authorization: update-token <lease token>` from starting the update. */
  | 'update-token'
  /** Credentials travel in the body (console sign-in). */
  | 'body'
  /** Public: no credentials (the OIDC issuer's discovery document and keys). */
  | 'none'
  /** The one-time `X-Stackyard-Upload-Ticket` a policy pack publish handed out (the client sends no API token). */
  | 'upload-ticket';

export interface QueryParameter {
  name: string;
  description: string;
  type: 'string' | 'integer' | 'boolean';
}

export interface OperationDoc {
  summary: string;
  tag: string;
  auth: OperationAuth;
  query?: readonly QueryParameter[];
  /** The JSON request body, when the route reads one; the schema the route itself validates with. */
  body?: z.ZodMiniType;
  /** A form-encoded request body (`application/x-www-form-urlencoded`) instead of JSON. */
  form?: z.ZodMiniType;
  /** The body may be omitted (the route treats no body as `{}`). */
  bodyOptional?: boolean;
  /** The success answer is YAML text (an environment definition), not JSON. */
  yaml?: boolean;
  /** The request body (`body`) or success answer (`answer`) is a gzip'd tar file (a policy pack), not JSON. */
  tarball?: 'body' | 'answer';
  /** Success status (default 200). */
  status?: number;
  /** The success answer; `null` for a bodiless answer (HEAD). Default `{}`. */
  response?: z.ZodMiniType | null;
}
