import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A message the stand-in holds. */
export interface HeldMessage {
  id: string;
  body: string;
  receiptHandle?: string;
}

/** A running SQS stand-in with its queues (name → messages). */
export interface SqsStandIn {
  endpoint: string;
  /** The URL of queue `name` (created by `createQueue`). */
  queueUrl(name: string): string;
  createQueue(name: string): string;
  messages(name: string): HeldMessage[];
  stop(): Promise<void>;
}

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

/**
 * SQS's AWS JSON 1.0 protocol on 127.0.0.1, enough for the run queue: SendMessage, ReceiveMessage (no visibility
 * timeout: a received message stays until deleted, but is handed out once) and DeleteMessage. The SDK checks the
 * MD5 of every body, so the stand-in answers with it, as SQS does.
 */
export async function startSqsServer(): Promise<SqsStandIn> {
  const queues = new Map<string, HeldMessage[]>();
  let endpoint = '';
  const nameOf = (url: unknown) => (typeof url === 'string' ? url.split('/').at(-1) ?? '' : '');
  const fail = (res: ServerResponse, type: string, message: string) => {
    res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-query-error': `${type};Sender` });
    res.end(JSON.stringify({ __type: `com.amazonaws.sqs#${type}`, message }));
  };
  const answer = (res: ServerResponse, body: unknown) => {
    res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
    res.end(JSON.stringify(body));
  };
  const handle = (req: IncomingMessage, res: ServerResponse, text: string) => {
    const action = String(req.headers['x-amz-target'] ?? '').replace('AmazonSQS.', '');
    const input = JSON.parse(text || '{}') as Record<string, unknown>;
    const queue = queues.get(nameOf(input.QueueUrl));
    if (!queue) return fail(res, 'QueueDoesNotExist', 'The specified queue does not exist.');
    if (action === 'SendMessage') {
      const body = String(input.MessageBody);
      const id = randomUUID();
      queue.push({ id, body });
      return answer(res, { MessageId: id, MD5OfMessageBody: md5(body) });
    }
    if (action === 'ReceiveMessage') {
      const max = Number(input.MaxNumberOfMessages ?? 1);
      const picked = queue.filter((message) => !message.receiptHandle).slice(0, max);
      for (const message of picked) message.receiptHandle = randomUUID();
      return answer(res, { Messages: picked.map((m) => ({ MessageId: m.id, ReceiptHandle: m.receiptHandle, Body: m.body, MD5OfBody: md5(m.body) })) });
    }
    if (action === 'DeleteMessage') {
      const at = queue.findIndex((message) => message.receiptHandle === input.ReceiptHandle);
      if (at >= 0) queue.splice(at, 1);
      return answer(res, {});
    }
    return fail(res, 'InvalidAction', `${action} is not supported by the stand-in.`);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const queueUrl = (name: string) => `${endpoint}/000000000000/${name}`;
  return {
    endpoint,
    queueUrl,
    createQueue(name) {
      queues.set(name, []);
      return queueUrl(name);
    },
    messages: (name) => queues.get(name) ?? [],
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
