import { InvalidInputError } from '../../core/errors.js';
import { ORG_ROLES, type OrgRole, type TeamRecord, type TokenRecord } from '../../ports/identity-store.js';
import { KEY, TTL_ATTRIBUTE } from './table.js';

/** The identity items' field checks and codecs, so the store (dynamodb-identity-store.ts) holds only its writes. */
const LOGIN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;
export const TOKEN_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
export const SHA256_HEX = /^[0-9a-f]{64}$/;
export const EXISTS = 'attribute_exists(#pk)';
const TEAM_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;

export function requireTeam(name: unknown): string {
  if (typeof name !== 'string' || !TEAM_NAME.test(name)) throw new InvalidInputError('Invalid team name.');
  return name;
}

export function requireTokenId(id: unknown): string {
  if (typeof id !== 'string' || !TOKEN_ID.test(id)) throw new InvalidInputError('Invalid id: expected letters, digits, - or _.');
  return id;
}

export function requireRole(role: unknown): OrgRole {
  if (!ORG_ROLES.includes(role as OrgRole)) {
    throw new InvalidInputError(`Invalid role '${String(role)}': expected ${ORG_ROLES.join(', ')}.`);
  }
  return role as OrgRole;
}

export function requireLogin(login: unknown): string {
  if (typeof login !== 'string' || !LOGIN.test(login)) {
    throw new InvalidInputError("Invalid user login: expected 1 to 100 letters, digits, '-', '_' or '.'.");
  }
  return login;
}

export function requireHash(hash: unknown): string {
  if (typeof hash !== 'string' || !SHA256_HEX.test(hash)) {
    throw new InvalidInputError('Invalid token hash: expected SHA-256 hex.');
  }
  return hash;
}

export function strip(item: Record<string, unknown>): Record<string, unknown> {
  const { [KEY.partition]: _pk, [KEY.sort]: _sk, ...rest } = item;
  return rest;
}

export function isConditionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'ConditionalCheckFailedException') return true;
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
  return error.name === 'TransactionCanceledException' && !!reasons?.some((reason) => reason.Code === 'ConditionalCheckFailed');
}

/** DynamoDB's TTL reads epoch seconds; a token lives until its `expiresAt` in milliseconds. */
export function tokenTtl(expiresAt: number): number {
  return Math.ceil(expiresAt / 1000);
}

export function toToken(item: Record<string, unknown>): TokenRecord {
  const { [TTL_ATTRIBUTE]: _ttl, ...token } = item;
  return token as unknown as TokenRecord;
}

export function toTeam(item: Record<string, unknown>): TeamRecord {
  const members = item.members instanceof Set ? [...(item.members as Set<string>)] : [];
  return {
    org: String(item.org),
    name: String(item.name),
    description: typeof item.description === 'string' ? item.description : '',
    members: members.sort(),
    createdAt: Number(item.createdAt),
  };
}
