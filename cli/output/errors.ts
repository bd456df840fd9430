import { DomainError } from '../../shared/core/errors.js';

/** A mistake by the user that needs no stack trace: one line, plus the next step. */
export class UserError extends Error {
  constructor(message: string, readonly hint?: string) {
    super(message);
    this.name = 'UserError';
  }
}

/** Renders any error as one clear line on stderr and returns the exit code (1 failure, 2 usage). */
export function renderError(err: unknown, stderr: NodeJS.WritableStream = process.stderr): number {
  if (err instanceof UserError) {
    stderr.write(`error: ${err.message}${err.hint ? `\n  ${err.hint}` : ''}\n`);
    return 1;
  }
  if (err instanceof DomainError) {
    stderr.write(`error: ${err.message}\n`);
    return 1;
  }
  const message = err instanceof Error ? err.message : String(err);
  stderr.write(`error: ${message}\n  This is a bug in stackyard; please report it with the command you ran.\n`);
  return 1;
}
