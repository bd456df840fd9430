/** What both environment store adapters check the same way: page sizes, page tokens, revision numbers, stale writes. */
import { ConflictError, InvalidInputError } from '../core/errors.js';
import { formatEnvironmentRef, type EnvironmentRef } from '../core/names.js';

const DEFAULT_PAGE = 100;
const MAX_PAGE = 500;

/** The page size of a listing: 1 to 500, 100 when absent. */
export function pageLimit(limit: number | undefined): number {
  const value = limit ?? DEFAULT_PAGE;
  if (!Number.isInteger(value) || value < 1 || value > MAX_PAGE) {
    throw new InvalidInputError(`The page size must be between 1 and ${MAX_PAGE}.`);
  }
  return value;
}

/** An opaque token naming the last environment of a page (base64url JSON). */
export function encodePageToken(last: { project: string; name: string }): string {
  return Buffer.from(JSON.stringify([last.project, last.name]), 'utf8').toString('base64url');
}

export function decodePageToken(token: string): { project: string; name: string } {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(parsed) && parsed.length === 2 && parsed.every((part) => typeof part === 'string')) {
      return { project: parsed[0] as string, name: parsed[1] as string };
    }
  } catch {
    // Reported below, as for any other malformed token.
  }
  throw new InvalidInputError('Invalid continuation token: pass the nextToken of the previous page unchanged.');
}

/** A revision number: a whole number of at least 1. */
export function revisionNumber(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new InvalidInputError(`Invalid revision ${String(value).slice(0, 20)}: revisions are numbered from 1.`);
  }
  return value;
}

/** The refusal of a write made against a revision that is no longer the latest. */
export function staleRevision(current: EnvironmentRef & { revision: number }, expectedRevision: number): ConflictError {
  return new ConflictError(
    `Environment '${formatEnvironmentRef(current)}' was changed by someone else (it is at revision ${current.revision}, ` +
      `not ${expectedRevision}); read it again and retry.`,
    { expectedRevision, revision: current.revision },
  );
}
