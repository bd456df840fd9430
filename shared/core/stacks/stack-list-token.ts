import { InvalidInputError } from '../errors.js';
import { validateProjectName } from '../names.js';

/**
 * The listing of stacks across organizations pages through one organization after another; its continuation token
 * says where, and is bound to the filter it was made for.
 */
export interface ListFilter {
  org?: string;
  project?: string;
  tagName?: string;
  tagValue?: string;
}

/** Where the next page of a cross-organization listing starts: an organization and the store's token within it. */
export interface ListPosition {
  org: string;
  after?: string;
}

export function listFilter(query: ListFilter): ListFilter {
  const filter: ListFilter = {};
  for (const field of ['org', 'project', 'tagName', 'tagValue'] as const) {
    const value = query[field];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value.length === 0 || value.length > 256) {
      throw new InvalidInputError(`Invalid ${field} filter: give a non-empty name.`);
    }
    filter[field] = value;
  }
  if (filter.project !== undefined) validateProjectName(filter.project);
  if (filter.tagValue !== undefined && filter.tagName === undefined) {
    throw new InvalidInputError('A tag value filter needs a tag name: use --tag name=value.');
  }
  return filter;
}

const LIST_TOKEN_VERSION = 1;

/** base64url JSON of the position and the query it belongs to, so a token cannot be replayed on another query. */
export function encodeListToken(position: ListPosition, filter: ListFilter): string {
  const body = { v: LIST_TOKEN_VERSION, org: position.org, after: position.after, q: filterKey(filter) };
  return Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
}

export function decodeListToken(token: string, filter: ListFilter, orgs: readonly string[]): ListPosition {
  const invalidToken = new InvalidInputError(
    'The continuation token is not valid for this listing: list again without it.',
  );
  if (typeof token !== 'string' || token.length === 0 || token.length > 4096) throw invalidToken;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    throw invalidToken;
  }
  if (
    typeof body !== 'object' ||
    body === null ||
    body.v !== LIST_TOKEN_VERSION ||
    typeof body.org !== 'string' ||
    !orgs.includes(body.org) ||
    (body.after !== undefined && (typeof body.after !== 'string' || body.after.length === 0)) ||
    body.q !== filterKey(filter)
  ) {
    throw invalidToken;
  }
  return { org: body.org, ...(body.after !== undefined ? { after: body.after as string } : {}) };
}

function filterKey(filter: ListFilter): string {
  return JSON.stringify([filter.org ?? null, filter.project ?? null, filter.tagName ?? null, filter.tagValue ?? null]);
}
