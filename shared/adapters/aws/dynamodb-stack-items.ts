import { InvalidInputError } from '../../core/errors.js';
import { validateConfigEnvironment, validateTags } from '../../core/names.js';
import { validateGrants } from '../../core/kernel/permissions.js';
import type { ListStacksQuery, StackChanges, StackRecord } from '../../ports/stack-store.js';
import { STACK_SK, stacksByOrg } from './keys.js';
import { KEY } from './table.js';

/**
 * How a stack record is laid out as DynamoDB items: the record fields, the checks and update expression of a
 * change, and the listing cursor. The store (dynamodb-stack-store.ts) composes these into its conditional writes.
 */
export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 500;
export const TOKEN_VERSION = 1;
export const OPTIONAL_FIELDS = ['lastUpdate', 'resourceCount', 'encryptedDataKey', 'currentCheckpoint', 'activeUpdate', 'configEnvironment'] as const;
export const RECORD_FIELDS = ['id', 'org', 'project', 'stack', 'version', 'revision', 'tags', 'createdAt', 'createdBy', 'grants', ...OPTIONAL_FIELDS] as const;

/** The one rule every write of a stack item carries: it exists and has the revision the caller read. */
export const AT_REVISION = 'attribute_exists(#pk) AND #revision = :expectedRevision';
/** A name item may only be removed by the stack it points to. */
export const NAME_IS_MINE = '#stackId = :stackId';

export function requireStackId(id: unknown): string {
  if (typeof id !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/.test(id)) {
    throw new InvalidInputError('Invalid stack id: expected 1 to 128 letters, digits, hyphens or underscores.');
  }
  return id;
}

export function toRecord(item: Record<string, unknown>): StackRecord {
  const record: Record<string, unknown> = {};
  for (const field of RECORD_FIELDS) if (item[field] !== undefined) record[field] = item[field];
  record.tags ??= {};
  return record as unknown as StackRecord;
}

export function checkChanges(changes: StackChanges): StackChanges {
  if (changes === null || typeof changes !== 'object') throw new InvalidInputError('Stack changes must be an object.');
  const checked: StackChanges = { ...changes };
  const count = (value: unknown, what: string) => {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      throw new InvalidInputError(`Invalid ${what}: expected a whole number of at least 0.`);
    }
  };
  if (changes.version !== undefined) count(changes.version, 'version');
  if (changes.tags !== undefined) checked.tags = validateTags(changes.tags);
  if (changes.grants !== undefined) checked.grants = validateGrants(changes.grants);
  if (changes.lastUpdate !== undefined && changes.lastUpdate !== null) count(changes.lastUpdate, 'lastUpdate');
  if (changes.resourceCount !== undefined && changes.resourceCount !== null) count(changes.resourceCount, 'resourceCount');
  for (const field of ['encryptedDataKey', 'currentCheckpoint', 'activeUpdate', 'configEnvironment'] as const) {
    const value = changes[field];
    if (value !== undefined && value !== null && (typeof value !== 'string' || value.length === 0 || value.length > 4096)) {
      throw new InvalidInputError(`Invalid ${field}: expected a non-empty string.`);
    }
  }
  if (typeof changes.configEnvironment === 'string') validateConfigEnvironment(changes.configEnvironment);
  return checked;
}

/** SET/REMOVE clauses for `changes` plus the revision bump, with their names and values. */
export function updateExpression(changes: StackChanges, extraSets: Record<string, unknown> = {}) {
  const names: Record<string, string> = { '#revision': 'revision' };
  const values: Record<string, unknown> = { ':one': 1 };
  const sets = ['#revision = #revision + :one'];
  const removes: string[] = [];
  const set = (field: string, value: unknown) => {
    names[`#${field}`] = field;
    values[`:${field}`] = value;
    sets.push(`#${field} = :${field}`);
  };
  for (const [field, value] of Object.entries(extraSets)) set(field, value);
  if (changes.version !== undefined) set('version', changes.version);
  if (changes.tags !== undefined) set('tags', changes.tags);
  if (changes.grants !== undefined) set('grants', changes.grants);
  for (const field of OPTIONAL_FIELDS) {
    const value = changes[field];
    if (value === null) {
      names[`#${field}`] = field;
      removes.push(`#${field}`);
    } else if (value !== undefined) {
      set(field, value);
    }
  }
  const expression = `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`;
  return { expression, names, values };
}

export interface ListCursor {
  v: number;
  org: string;
  project?: string;
  tagName?: string;
  tagValue?: string;
  key: Record<string, string>;
}

export function encodeCursor(cursor: ListCursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

export function decodeCursor(token: string, query: ListStacksQuery): Record<string, string> {
  const invalid = () =>
    new InvalidInputError('Invalid continuation token: pass back the token from the previous page of the same listing.');
  if (typeof token !== 'string' || token.length === 0 || token.length > 4096) throw invalid();
  let cursor: ListCursor;
  try {
    cursor = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as ListCursor;
  } catch {
    throw invalid();
  }
  const key = cursor?.key;
  const sameQuery =
    cursor?.v === TOKEN_VERSION &&
    cursor.org === query.org &&
    cursor.project === query.project &&
    cursor.tagName === query.tagName &&
    cursor.tagValue === query.tagValue;
  const keyFields = [KEY.partition, KEY.sort, KEY.gsi1Partition, KEY.gsi1Sort];
  if (
    !sameQuery ||
    !key ||
    typeof key !== 'object' ||
    Object.keys(key).length !== keyFields.length ||
    !keyFields.every((field) => typeof key[field] === 'string') ||
    key[KEY.gsi1Partition] !== stacksByOrg(query.org) ||
    key[KEY.sort] !== STACK_SK
  ) {
    throw invalid();
  }
  return key;
}
