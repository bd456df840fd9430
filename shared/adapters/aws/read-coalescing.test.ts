import { GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { coalesceReads } from './read-coalescing.js';

/** A stand-in table of one item that counts what reaches it. */
function countingClient() {
  const state = { item: { pk: 'A', sk: 'B', n: 1 }, sent: [] as string[] };
  const client = {
    async send(command: unknown) {
      state.sent.push((command as object).constructor.name);
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (command instanceof PutCommand) state.item = { ...(command.input.Item as typeof state.item) };
      return { Item: structuredClone(state.item) };
    },
  };
  return { state, documents: coalesceReads(client as unknown as DynamoDBDocumentClient) };
}

const get = () => new GetCommand({ TableName: 't', Key: { pk: 'A', sk: 'B' }, ConsistentRead: true });

describe('coalesceReads', () => {
  it('sends identical reads asked in the same turn once, and gives each caller its own copy', async () => {
    const { state, documents } = countingClient();

    const answers = await Promise.all(Array.from({ length: 50 }, () => documents.send(get())));
    answers[0]!.Item!.n = 99;

    expect(state.sent).toEqual(['GetCommand']);
    expect(answers.slice(1).every((answer) => answer.Item?.n === 1)).toBe(true);
  });

  it('does not join a read already on the wire: a read asked after a write sees that write', async () => {
    const { state, documents } = countingClient();

    const before = documents.send(get());
    await new Promise((resolve) => setImmediate(resolve));
    await documents.send(new PutCommand({ TableName: 't', Item: { pk: 'A', sk: 'B', n: 2 } }));
    const after = await documents.send(get());

    expect((await before).Item?.n).toBe(1);
    expect(after.Item?.n).toBe(2);
    expect(state.sent).toEqual(['GetCommand', 'PutCommand', 'GetCommand']);
  });

  it('keeps different reads apart and never coalesces writes', async () => {
    const { state, documents } = countingClient();
    const query = new QueryCommand({ TableName: 't', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': 'A' } });
    const put = () => new PutCommand({ TableName: 't', Item: { pk: 'A', sk: 'B', n: 3 } });

    await Promise.all([documents.send(get()), documents.send(query), documents.send(put()), documents.send(put())]);

    expect([...state.sent].sort()).toEqual(['GetCommand', 'PutCommand', 'PutCommand', 'QueryCommand']);
  });
});
