/**
 * An error answer from a Stackyard (or Pulumi-compatible) service: the status taken from the JSON body's `code`
 * when there is one (as the Pulumi CLI does), the service's message, and the request id for support. Kept free of
 * imports so the error renderer can recognise it without loading the HTTP client.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly requestId?: string,
    /** What the CLI was doing, e.g. `start update`; lets the renderer pick the right next step. */
    readonly operation?: string,
    /** The body's `code` when it is a name rather than a status (`approval_required`, `plan_stale`, …). */
    readonly code?: string,
    /** ESC's diagnostics, when the service refused a definition with errors (400). */
    readonly diagnostics?: unknown[],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}
