import { ConditionalCheckFailedException, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { createHash, randomBytes } from 'node:crypto';
import { ConflictError, ForbiddenError, InvalidInputError, LeaseHeldError, type LeaseHolder } from '../../core/errors.js';
import { formatStackRef, type StackRef } from '../../core/names.js';
import type { AcquireRequest, LeaseGrant, LeaseStore, TokenRef } from '../../ports/lease-store.js';
import { translateDynamoDbError } from './errors.js';
import { KEY, TTL_ATTRIBUTE } from './table.js';
import { stackPk } from './keys.js';

/*
 * Condition clauses. Timeline of one stack's LEASE item (times are the injected clock, epoch ms; d = duration):
 *
 *   t0 acquire(A)   item absent                 LEASE_IS_FREE ok (attribute_not_exists)  A holds until t0+d
 *   t1 acquire(B)   t1 <= A.expiresAt           LEASE_IS_FREE fails -> LeaseHeldError(A) from ALL_OLD, no read
 *   t2 renew(A)     A's hash, t2 <= expiresAt   HELD_BY_CALLER ok -> expiresAt = t2+d, token unchanged
 *   t3              t3 > A.expiresAt            A is dead: validate/renew/release fail HELD_BY_CALLER
 *   t4 acquire(B)   A.expiresAt < t4            LEASE_IS_FREE ok (expired) -> B overwrites A; A's hash is gone
 *   t5 save(B)      B's hash, live              HELD_BY_CALLER ok -> saves = saves + 1, returned (nextSave)
 *   t6 revoke(B)    updateId = B                HELD_BY_UPDATE ok -> item deleted, B's token dead at once
 *
 * Callers that pass the stack's name add UNDER_NAME to HELD_BY_CALLER: the token is then live only for the name it
 * was granted under (`stackName`), checked in the same call.
 *
 * A lease is live while now <= expiresAt, so "expired" is exactly `expiresAt < :now` in every clause. The TTL
 * attribute only lets DynamoDB delete abandoned items (a day after expiry); no decision depends on it, and an item
 * the sweeper already deleted reads as "no lease" everywhere.
 */
const LEASE_IS_FREE = 'attribute_not_exists(#pk) OR #expiresAt < :now';
const HELD_BY_CALLER = '#updateId = :updateId AND #tokenHash = :tokenHash AND #expiresAt >= :now';
const HELD_BY_UPDATE = '#updateId = :updateId';
const UNDER_NAME = ' AND #stackName = :stackName';

const NAMES = { '#pk': KEY.partition, '#expiresAt': 'expiresAt' };
const CALLER_NAMES = { '#updateId': 'updateId', '#tokenHash': 'tokenHash', '#expiresAt': 'expiresAt' };
const TTL_GRACE_SECONDS = 24 * 60 * 60;
const MAX_DURATION_MS = 7 * 24 * 60 * 60 * 1000;
const LEASE_SK = 'LEASE';
const tokenSk = (updateId: string) => `TOKEN#${updateId}`;

interface TokenItem {
  updateId: string;
  holder: string;
  startedAt: number;
  expiresAt: number;
  tokenHash: string;
  /** `org/project/stack` at grant time, when the caller gave it. */
  stackName?: string;
  /** State saves counted by `nextSave` (exclusive lease only). */
  saves?: number;
}

interface CallerCondition {
  ConditionExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues: Record<string, unknown>;
}

/** The caller's claim on a token; `stackName` when the name is checked too. */
interface CallerCheck {
  stackId: string;
  updateId: string;
  tokenHash: string;
  stackName?: string;
}

const DEAD_TOKEN =
  'The update token is not valid for this update: the update completed, was cancelled, or its lease expired.';

/** SHA-256 hex of an update token: the only form in which tokens are stored. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function requireId(value: unknown, what: string): string {
  if (typeof value !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/.test(value)) {
    throw new InvalidInputError(`Invalid ${what}: expected 1 to 128 letters, digits, '-', '_' or '.'.`);
  }
  return value;
}

function requireDuration(durationMs: unknown): number {
  if (typeof durationMs !== 'number' || !Number.isInteger(durationMs) || durationMs <= 0 || durationMs > MAX_DURATION_MS) {
    throw new InvalidInputError('Invalid lease duration: expected a positive whole number of milliseconds up to 7 days.');
  }
  return durationMs;
}

function isConditionFailure(error: unknown): error is ConditionalCheckFailedException {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

/** The update lease and update tokens in the Stackyard table (one LEASE item and TOKEN# items per stack). */
export class DynamoDbLeaseStore implements LeaseStore {
  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly now: () => number = Date.now,
  ) {}

  async acquire(request: AcquireRequest): Promise<LeaseGrant> {
    const { stackId, updateId, holder, durationMs, stackName } = this.checkRequest(request);
    const now = this.now();
    const grant = { token: randomBytes(32).toString('base64url'), expiresAt: now + durationMs };
    const tokenHash = hashToken(grant.token);
    const item = { updateId, holder, startedAt: now, expiresAt: grant.expiresAt, tokenHash, saves: 0 };
    try {
      await this.documents.send(
        new PutCommand({
          TableName: this.table,
          Item: this.tokenItem(stackId, LEASE_SK, stackName ? { ...item, stackName } : item),
          ConditionExpression: LEASE_IS_FREE,
          ExpressionAttributeNames: NAMES,
          ExpressionAttributeValues: { ':now': now },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw translateDynamoDbError(error, 'The lease');
      // The DocumentClient leaves this map in wire format.
      const old = error.Item ? (unmarshall(error.Item as Record<string, AttributeValue>) as Partial<TokenItem>) : undefined;
      if (!old?.updateId) throw new ConflictError('Another update holds the stack; try again.', {}, { cause: error });
      throw new LeaseHeldError(holderOf(old as TokenItem), { cause: error });
    }
    return grant;
  }

  async issue(request: AcquireRequest): Promise<LeaseGrant> {
    const { stackId, updateId, holder, durationMs, stackName } = this.checkRequest(request);
    const now = this.now();
    const grant = { token: randomBytes(32).toString('base64url'), expiresAt: now + durationMs };
    const item = { updateId, holder, startedAt: now, expiresAt: grant.expiresAt, tokenHash: hashToken(grant.token) };
    try {
      await this.documents.send(
        new PutCommand({
          TableName: this.table,
          Item: this.tokenItem(stackId, tokenSk(updateId), stackName ? { ...item, stackName } : item),
          ConditionExpression: LEASE_IS_FREE,
          ExpressionAttributeNames: NAMES,
          ExpressionAttributeValues: { ':now': now },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw translateDynamoDbError(error, 'The update token');
      throw new ConflictError(`Update ${updateId} already has a live token.`, { updateId }, { cause: error });
    }
    return grant;
  }

  async validate(ref: TokenRef): Promise<void> {
    const { stackId, updateId, tokenHash, stackName } = this.checkRef(ref);
    const now = this.now();
    const [lease, token] = await Promise.all([this.read(stackId, LEASE_SK), this.read(stackId, tokenSk(updateId))]);
    const live = (item: TokenItem | undefined) =>
      item !== undefined &&
      item.updateId === updateId &&
      item.tokenHash === tokenHash &&
      item.expiresAt >= now &&
      (stackName === undefined || item.stackName === stackName);
    if (!live(lease) && !live(token)) throw new ForbiddenError(DEAD_TOKEN);
  }

  async nextSave(ref: TokenRef): Promise<number> {
    const check = this.checkRef(ref);
    try {
      const { Attributes } = await this.documents.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { [KEY.partition]: stackPk(check.stackId), [KEY.sort]: LEASE_SK },
          UpdateExpression: 'SET #saves = if_not_exists(#saves, :zero) + :one',
          ...this.heldByCaller(check, this.now(), { '#saves': 'saves' }, { ':zero': 0, ':one': 1 }),
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Attributes!.saves as number;
    } catch (error) {
      if (isConditionFailure(error)) throw new ForbiddenError(DEAD_TOKEN, { cause: error });
      throw translateDynamoDbError(error, 'The lease');
    }
  }

  async renew(ref: TokenRef, durationMs: number): Promise<LeaseGrant> {
    const check = this.checkRef(ref);
    requireDuration(durationMs);
    const now = this.now();
    const expiresAt = now + durationMs;
    for (const sk of [LEASE_SK, tokenSk(check.updateId)]) {
      try {
        await this.documents.send(
          new UpdateCommand({
            TableName: this.table,
            Key: { [KEY.partition]: stackPk(check.stackId), [KEY.sort]: sk },
            UpdateExpression: 'SET #expiresAt = :expiresAt, #ttl = :ttl',
            ...this.heldByCaller(check, now, { '#ttl': TTL_ATTRIBUTE }, {
              ':expiresAt': expiresAt,
              ':ttl': ttlOf(expiresAt),
            }),
          }),
        );
        return { token: ref.token, expiresAt };
      } catch (error) {
        if (!isConditionFailure(error)) throw translateDynamoDbError(error, 'The lease');
      }
    }
    throw new ForbiddenError(DEAD_TOKEN);
  }

  async release(ref: TokenRef): Promise<void> {
    const check = this.checkRef(ref);
    const now = this.now();
    for (const sk of [LEASE_SK, tokenSk(check.updateId)]) {
      try {
        await this.documents.send(
          new DeleteCommand({
            TableName: this.table,
            Key: { [KEY.partition]: stackPk(check.stackId), [KEY.sort]: sk },
            ...this.heldByCaller(check, now, {}, {}),
          }),
        );
        return;
      } catch (error) {
        if (!isConditionFailure(error)) throw translateDynamoDbError(error, 'The lease');
      }
    }
    throw new ForbiddenError(DEAD_TOKEN);
  }

  async revoke(stackId: string, updateId: string): Promise<void> {
    requireId(stackId, 'stack id');
    requireId(updateId, 'update id');
    const key = (sk: string) => ({ [KEY.partition]: stackPk(stackId), [KEY.sort]: sk });
    try {
      await Promise.all([
        this.documents.send(
          new DeleteCommand({
            TableName: this.table,
            Key: key(LEASE_SK),
            ConditionExpression: HELD_BY_UPDATE,
            ExpressionAttributeNames: { '#updateId': 'updateId' },
            ExpressionAttributeValues: { ':updateId': updateId },
          }),
        ).catch((error: unknown) => {
          if (!isConditionFailure(error)) throw error;
        }),
        this.documents.send(new DeleteCommand({ TableName: this.table, Key: key(tokenSk(updateId)) })),
      ]);
    } catch (error) {
      throw translateDynamoDbError(error, 'The lease');
    }
  }

  async current(stackId: string): Promise<LeaseHolder | undefined> {
    requireId(stackId, 'stack id');
    const lease = await this.read(stackId, LEASE_SK);
    return lease && lease.expiresAt >= this.now() ? holderOf(lease) : undefined;
  }

  private checkRequest(request: AcquireRequest): Omit<AcquireRequest, 'stack'> & { stackName?: string } {
    if (typeof request.holder !== 'string' || request.holder.length === 0 || request.holder.length > 256) {
      throw new InvalidInputError('Invalid lease holder: expected a login of 1 to 256 characters.');
    }
    return {
      stackId: requireId(request.stackId, 'stack id'),
      updateId: requireId(request.updateId, 'update id'),
      holder: request.holder,
      durationMs: requireDuration(request.durationMs),
      stackName: nameOf(request.stack),
    };
  }

  private checkRef(ref: TokenRef): CallerCheck {
    const stackId = requireId(ref.stackId, 'stack id');
    const updateId = requireId(ref.updateId, 'update id');
    if (typeof ref.token !== 'string' || ref.token.length === 0 || ref.token.length > 512) {
      throw new ForbiddenError(DEAD_TOKEN);
    }
    return { stackId, updateId, tokenHash: hashToken(ref.token), stackName: nameOf(ref.stack) };
  }

  /** HELD_BY_CALLER (plus UNDER_NAME when the caller names the stack), merged with a write's own names and values. */
  private heldByCaller(
    check: CallerCheck,
    now: number,
    names: Record<string, string>,
    values: Record<string, unknown>,
  ): CallerCondition {
    const base = { ':updateId': check.updateId, ':tokenHash': check.tokenHash, ':now': now, ...values };
    if (check.stackName === undefined) {
      return {
        ConditionExpression: HELD_BY_CALLER,
        ExpressionAttributeNames: { ...CALLER_NAMES, ...names },
        ExpressionAttributeValues: base,
      };
    }
    return {
      ConditionExpression: HELD_BY_CALLER + UNDER_NAME,
      ExpressionAttributeNames: { ...CALLER_NAMES, '#stackName': 'stackName', ...names },
      ExpressionAttributeValues: { ...base, ':stackName': check.stackName },
    };
  }

  private tokenItem(stackId: string, sk: string, token: TokenItem): Record<string, unknown> {
    return {
      [KEY.partition]: stackPk(stackId),
      [KEY.sort]: sk,
      stackId,
      ...token,
      [TTL_ATTRIBUTE]: ttlOf(token.expiresAt),
    };
  }

  private async read(stackId: string, sk: string): Promise<TokenItem | undefined> {
    try {
      const { Item } = await this.documents.send(
        new GetCommand({
          TableName: this.table,
          Key: { [KEY.partition]: stackPk(stackId), [KEY.sort]: sk },
          ConsistentRead: true,
        }),
      );
      return Item as TokenItem | undefined;
    } catch (error) {
      throw translateDynamoDbError(error, 'The lease');
    }
  }
}

function nameOf(stack: StackRef | undefined): string | undefined {
  return stack === undefined ? undefined : formatStackRef(stack);
}

function holderOf(item: TokenItem): LeaseHolder {
  return { updateId: item.updateId, holder: item.holder, startedAt: item.startedAt, expiresAt: item.expiresAt };
}

function ttlOf(expiresAt: number): number {
  return Math.ceil(expiresAt / 1000) + TTL_GRACE_SECONDS;
}
