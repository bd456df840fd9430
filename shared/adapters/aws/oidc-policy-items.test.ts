import { GetCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { ConflictError, OidcPolicyLimitError } from '../../core/errors.js';
import type { OidcPolicyRecord } from '../../ports/identity-store.js';
import { OidcPolicyItems } from './oidc-policy-items.js';

const policy: OidcPolicyRecord = {
  org: 'acme',
  id: 'policy-1',
  issuer: 'https://gitlab.com',
  audiences: ['urn:pulumi:org:acme'],
  claims: { sub: 'project_path:acme/infra:*' },
  tokenKind: 'organization',
  maxLifetimeSeconds: 3600,
  description: '',
  createdAt: 1,
  createdBy: 'alice',
};

/** A transaction DynamoDB cancelled, with one reason code per item, as the SDK raises it. */
function cancelled(...codes: string[]): Error {
  return Object.assign(new Error('Transaction cancelled'), {
    name: 'TransactionCanceledException',
    CancellationReasons: codes.map((Code) => ({ Code })),
  });
}

/**
 * A document client whose counter item exists and whose transactions fail with `failures`, in order, then succeed.
 * DynamoDB Local runs transactions one at a time, so it never answers `TransactionConflict` as DynamoDB does when two
 * meet on the counter: this stands in for that answer.
 */
function clientFailingWith(failures: Error[]) {
  let transactions = 0;
  const documents = {
    send: async (command: unknown) => {
      if (command instanceof GetCommand) return { Item: { policies: 3 } };
      if (command instanceof TransactWriteCommand) {
        transactions += 1;
        const failure = failures.shift();
        if (failure) throw failure;
        return {};
      }
      throw new Error(`unexpected command ${String(command)}`);
    },
  } as unknown as DynamoDBDocumentClient;
  return { documents, transactions: () => transactions };
}

describe('OIDC policy items on DynamoDB', () => {
  it('tries an add again when its transaction met another one on the counter, so the cap decides it', async () => {
    const client = clientFailingWith([cancelled('None', 'TransactionConflict'), cancelled('None', 'TransactionConflict')]);

    await new OidcPolicyItems(client.documents, 'table').create(policy, 50);

    expect(client.transactions()).toBe(3);
  });

  it('gives up after five conflicting tries with a 409 that says to retry, and refuses a full count at once', async () => {
    const conflicts = clientFailingWith(Array.from({ length: 6 }, () => cancelled('None', 'TransactionConflict')));
    const full = clientFailingWith([cancelled('None', 'ConditionalCheckFailed')]);

    const conflict = await new OidcPolicyItems(conflicts.documents, 'table').create(policy, 50).catch((e: unknown) => e);
    const limit = await new OidcPolicyItems(full.documents, 'table').create(policy, 50).catch((e: unknown) => e);

    expect(conflict).toBeInstanceOf(ConflictError);
    expect(conflict).toMatchObject({ status: 409, message: 'The OIDC trust policy is being changed by another request; retry.' });
    expect(conflicts.transactions()).toBe(5);
    expect(limit).toBeInstanceOf(OidcPolicyLimitError);
    expect(full.transactions()).toBe(1);
  });

  it('tries a removal again after a conflict on the counter', async () => {
    const client = clientFailingWith([cancelled('None', 'TransactionConflict')]);

    await new OidcPolicyItems(client.documents, 'table').delete('acme', 'policy-1');

    expect(client.transactions()).toBe(2);
  });
});
