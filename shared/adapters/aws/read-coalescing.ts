import { GetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

type Send = DynamoDBDocumentClient['send'];

interface PendingRead {
  run: () => Promise<unknown>;
  joiners: { resolve: (value: unknown) => void; reject: (error: unknown) => void }[];
}

/**
 * A DocumentClient whose identical reads (same Get or Query input), asked for in the same turn of the event loop,
 * go to DynamoDB once. Fifty requests with one token on one stack then cost one token, user and stack read instead of
 * fifty each, so they do not queue behind each other's reads.
 *
 * Why this keeps every read as fresh as its caller asked for: a read joins only a batch that has not been sent yet.
 * The batch is sent on `setImmediate`, after every caller in it asked, so what it returns was read after each of
 * them asked: the same answer each would have had on its own, a little later. Writes are never coalesced. Every
 * joiner gets its own copy of the answer, so one caller changing it cannot reach another.
 */
export function coalesceReads(documents: DynamoDBDocumentClient): DynamoDBDocumentClient {
  const pending = new Map<string, PendingRead>();
  const send = documents.send.bind(documents) as (command: unknown) => Promise<unknown>;

  const flush = (key: string) => {
    const read = pending.get(key);
    pending.delete(key);
    if (!read) return;
    read.run().then(
      (output) => read.joiners.forEach(({ resolve }, i) => resolve(i === 0 ? output : structuredClone(output))),
      (error: unknown) => read.joiners.forEach(({ reject }) => reject(error)),
    );
  };

  const coalesced = (command: unknown): Promise<unknown> => {
    if (!(command instanceof GetCommand) && !(command instanceof QueryCommand)) return send(command);
    const key = `${command.constructor.name}:${JSON.stringify(command.input)}`;
    return new Promise((resolve, reject) => {
      const read = pending.get(key);
      if (read) {
        read.joiners.push({ resolve, reject });
        return;
      }
      pending.set(key, { run: () => send(command), joiners: [{ resolve, reject }] });
      setImmediate(flush, key);
    });
  };

  return new Proxy(documents, {
    get(target, property, receiver) {
      if (property === 'send') return coalesced as unknown as Send;
      return Reflect.get(target, property, receiver);
    },
  });
}
