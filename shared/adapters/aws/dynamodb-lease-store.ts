import { ConditionalCheckFailedException, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { createHash, randomBytes } from 'node:crypto';
import { ConflictError, ForbiddenError, InvalidInputError, LeaseHeldError, type LeaseHolder } from '../../core/errors.js';
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
 *   t5 revoke(B)    updateId = B                HELD_BY_UPDATE ok -> item deleted, B's token dead at once
 *
 * A lease is live while now <= expiresAt, so "expired" is exactly `expiresAt < :now` in every clause. The TTL
 * attribute only lets DynamoDB delete abandoned items (a day after expiry); no decision depends on it, and an item
 * the sweeper already deleted reads as "no lease" everywhere.
 */
const LEASE_IS_FREE = 'attribute_not_exists(#pk) OR #expiresAt < :now';
const HELD_BY_CALLER = '#updateId = :updateId AND #tokenHash = :tokenHash AND #expiresAt >= :now';
const HELD_BY_UPDATE = '#updateId = :updateId';

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
    const { stackId, updateId, holder, durationMs } = this.checkRequest(request);
    const now = this.now();
    const grant = { token: randomBytes(32).toString('base64url'), expiresAt: now + durationMs };
    try {
      await this.documents.send(
        new PutCommand({
          TableName: this.table,
          Item: this.tokenItem(stackId, LEASE_SK, { updateId, holder, startedAt: now, expiresAt: grant.expiresAt, tokenHash: hashToken(grant.token) }),
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
    const { stackId, updateId, holder, durationMs } = this.checkRequest(request);
    const now = this.now();
    const grant = { token: randomBytes(32).toString('base64url'), expiresAt: now + durationMs };
    try {
      await this.documents.send(
        new PutCommand({
          TableName: this.table,
          Item: this.tokenItem(stackId, tokenSk(updateId), { updateId, holder, startedAt: now, expiresAt: grant.expiresAt, tokenHash: hashToken(grant.token) }),
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
    const { stackId, updateId, tokenHash } = this.checkRef(ref);
    const now = this.now();
    const [lease, token] = await Promise.all([this.read(stackId, LEASE_SK), this.read(stackId, tokenSk(updateId))]);
    const live = (item: TokenItem | undefined) =>
      item !== undefined && item.updateId === updateId && item.tokenHash === tokenHash && item.expiresAt >= now;
    if (!live(lease) && !live(token)) throw new ForbiddenError(DEAD_TOKEN);
  }

  async renew(ref: TokenRef, durationMs: number): Promise<LeaseGrant> {
    const { stackId, updateId, tokenHash } = this.checkRef(ref);
    requireDuration(durationMs);
    const now = this.now();
    const expiresAt = now + durationMs;
    for (const sk of [LEASE_SK, tokenSk(updateId)]) {
      try {
        await this.documents.send(
          new UpdateCommand({
            TableName: this.table,
            Key: { [KEY.partition]: stackPk(stackId), [KEY.sort]: sk },
            UpdateExpression: 'SET #expiresAt = :expiresAt, #ttl = :ttl',
            ConditionExpression: HELD_BY_CALLER,
            ExpressionAttributeNames: { ...CALLER_NAMES, '#ttl': TTL_ATTRIBUTE },
            ExpressionAttributeValues: { ':updateId': updateId, ':tokenHash': tokenHash, ':now': now, ':expiresAt': expiresAt, ':ttl': ttlOf(expiresAt) },
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
    const { stackId, updateId, tokenHash } = this.checkRef(ref);
    const now = this.now();
    for (const sk of [LEASE_SK, tokenSk(updateId)]) {
      try {
        await this.documents.send(
          new DeleteCommand({
            TableName: this.table,
            Key: { [KEY.partition]: stackPk(stackId), [KEY.sort]: sk },
            ConditionExpression: HELD_BY_CALLER,
            ExpressionAttributeNames: CALLER_NAMES,
            ExpressionAttributeValues: { ':updateId': updateId, ':tokenHash': tokenHash, ':now': now },
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

  private checkRequest(request: AcquireRequest): AcquireRequest {
    if (typeof request.holder !== 'string' || request.holder.length === 0 || request.holder.length > 256) {
      throw new InvalidInputError('Invalid lease holder: expected a login of 1 to 256 characters.');
    }
    return {
      stackId: requireId(request.stackId, 'stack id'),
      updateId: requireId(request.updateId, 'update id'),
      holder: request.holder,
      durationMs: requireDuration(request.durationMs),
    };
  }

  private checkRef(ref: TokenRef): { stackId: string; updateId: string; tokenHash: string } {
    const stackId = requireId(ref.stackId, 'stack id');
    const updateId = requireId(ref.updateId, 'update id');
    if (typeof ref.token !== 'string' || ref.token.length === 0 || ref.token.length > 512) {
      throw new ForbiddenError(DEAD_TOKEN);
    }
    return { stackId, updateId, tokenHash: hashToken(ref.token) };
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

function holderOf(item: TokenItem): LeaseHolder {
  return { updateId: item.updateId, holder: item.holder, startedAt: item.startedAt, expiresAt: item.expiresAt };
}

function ttlOf(expiresAt: number): number {
  return Math.ceil(expiresAt / 1000) + TTL_GRACE_SECONDS;
}
