import { DomainError } from '../../shared/core/errors.js';
import { ApiError } from '../api-client/api-error.js';

/** A mistake by the user that needs no stack trace: one line, plus the next step. */
export class UserError extends Error {
  constructor(message: string, readonly hint?: string) {
    super(message);
    this.name = 'UserError';
  }
}

const LEASE_HELD_HINT = 'Another update holds the stack: wait for it to finish, or run `stackyard cancel` if it is no longer running.';

/**
 * The next step after a service error, by status; `undefined` when the message already says it (every other 409,
 * such as a name already taken or a stack changed meanwhile, says what to do itself).
 */
function apiHint(err: ApiError): string | undefined {
  if (err.status === 0) return 'Check the backend URL (`stackyard whoami -v`) and that the service is running.';
  if (err.status === 401) return 'Run `stackyard login <url>` with a valid access token (or set STACKYARD_ACCESS_TOKEN).';
  // a refusal with a code of its own (`plan_author_cannot_approve`) is not about access and says what to do itself
  if (err.status === 403 && err.code === undefined) return 'Ask an administrator of the organization for access.';
  // a refusal with a code of its own (an update plan's: `approval_required`, `plan_stale`, …) says what to do itself
  if (err.status === 409 && err.operation === 'start update' && err.code === undefined && !/cancel/i.test(err.message)) return LEASE_HELD_HINT;
  if (err.status === 429) return 'The service is rate-limiting requests: wait a moment and retry.';
  if (err.status >= 500) return `Retry; if it persists, give the request id${err.requestId ? ` (${err.requestId})` : ''} to your administrator.`;
  return undefined;
}

/**
 * The status prefix both backends show: the service's answers as the Pulumi CLI shows them (`[409] …`), and the
 * local backend's refusals, which are the same core errors, the same way; a refused precondition (an update gate's
 * verdict) is a whole sentence for the user and has none.
 */
const statusPrefix = (status: number) => (status > 0 && status !== 412 ? `[${status}] ` : '');

/** A command line that cannot run as written (a refused flag, a bad combination): exit code 2, like commander's. */
export class UsageError extends UserError {
  constructor(message: string, hint?: string) {
    super(message, hint);
    this.name = 'UsageError';
  }
}

/** Renders any error as one clear line on stderr and returns the exit code (1 failure, 2 usage). */
export function renderError(err: unknown, stderr: NodeJS.WritableStream = process.stderr): number {
  if (err instanceof UserError) {
    stderr.write(`error: ${err.message}${err.hint ? `\n  ${err.hint}` : ''}\n`);
    return err instanceof UsageError ? 2 : 1;
  }
  if (err instanceof ApiError) {
    const hint = apiHint(err);
    stderr.write(`error: ${statusPrefix(err.status)}${err.message}${hint ? `\n  ${hint}` : ''}\n`);
    return 1;
  }
  if (err instanceof DomainError) {
    const hint = err.kind === 'lease-held' && !/cancel/i.test(err.message) ? LEASE_HELD_HINT : undefined;
    stderr.write(`error: ${statusPrefix(err.status)}${err.message}${hint ? `\n  ${hint}` : ''}\n`);
    return 1;
  }
  // The engine's usage errors (e.g. a missing --yes without a terminal) carry their own fix in the message.
  if (err instanceof Error && err.name === 'OperationUsageError') {
    stderr.write(`error: ${err.message}\n`);
    return 1;
  }
  const message = err instanceof Error ? err.message : String(err);
  stderr.write(`error: ${message}\n  This is a bug in stackyard; please report it with the command you ran.\n`);
  return 1;
}
