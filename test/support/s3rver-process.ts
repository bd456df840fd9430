/**
 * Child-process entry for the S3 stand-in: s3rver 3.7.1 plus a conditional-write shim, listening on a free port
 * and printing `READY <port>`. Run with `node --openssl-legacy-provider` (s3rver's listing pagination uses the
 * legacy `des` cipher). Usage: `s3rver-process.ts <directory>`.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const S3rver = require('s3rver');
const S3Error = require('s3rver/lib/models/error');

interface KoaContext {
  method: string;
  path: string;
  query: Record<string, string | string[] | undefined>;
  req: AsyncIterable<Buffer>;
  get(header: string): string;
}

interface S3rverStore {
  existsObject(bucket: string, key: string): Promise<boolean>;
  getMetadata(bucket: string, key: string): Promise<{ etag: string }>;
}

/** The bucket and key a request finally writes (PutObject or CompleteMultipartUpload), else undefined. */
function writeTarget(ctx: KoaContext): { bucket: string; key: string } | undefined {
  const match = /^\/([^/]+)\/(.+)$/.exec(ctx.path);
  if (!match) return undefined;
  const query = Object.keys(ctx.query);
  // A presigned PUT carries its signature and checksum in `x-amz-*` query parameters: a PutObject all the same.
  const isPut = ctx.method === 'PUT' && query.every((name) => name === 'x-id' || name.toLowerCase().startsWith('x-amz-')) && !ctx.get('x-amz-copy-source');
  const isComplete = ctx.method === 'POST' && query.includes('uploadId');
  if (!isPut && !isComplete) return undefined;
  return { bucket: decodeURIComponent(match[1]), key: decodeURIComponent(match[2]) };
}

/**
 * Koa middleware giving PutObject and CompleteMultipartUpload S3's conditional-write semantics, which s3rver
 * lacks: `If-None-Match: *` on an existing key and `If-Match` with another ETag answer 412 PreconditionFailed,
 * `If-Match` on a missing key 404 NoSuchKey. Writes to one key are serialised so check-then-write is atomic.
 */
function conditionalWrites(store: S3rverStore) {
  const tails = new Map<string, Promise<void>>();
  return async (ctx: KoaContext, next: () => Promise<void>) => {
    const target = writeTarget(ctx);
    if (!target) return next();
    const id = `${target.bucket}/${target.key}`;
    const previous = tails.get(id) ?? Promise.resolve();
    let release!: () => void;
    const tail = previous.then(() => new Promise<void>((resolve) => (release = resolve)));
    tails.set(id, tail);
    await previous;
    try {
      const ifNoneMatch = ctx.get('if-none-match');
      const ifMatch = ctx.get('if-match');
      let refusal: unknown;
      if (ifNoneMatch || ifMatch) {
        const exists = await store.existsObject(target.bucket, target.key);
        if (ifNoneMatch === '*' && exists) {
          refusal = new S3Error('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', {
            Condition: 'If-None-Match',
          });
        } else if (ifMatch && !exists) {
          refusal = new S3Error('NoSuchKey', 'The specified key does not exist.', { Key: target.key });
        } else if (ifMatch && ifMatch !== '*') {
          const { etag } = await store.getMetadata(target.bucket, target.key);
          if (ifMatch !== etag && `"${ifMatch}"` !== etag) {
            refusal = new S3Error('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', {
              Condition: 'If-Match',
            });
          }
        }
      }
      if (refusal) {
        // Read the body first so the client sees the 412 rather than a reset connection.
        for await (const _chunk of ctx.req);
        throw refusal;
      }
      await next();
    } finally {
      release();
      if (tails.get(id) === tail) tails.delete(id);
    }
  };
}

const directory = process.argv[2];
if (!directory) throw new Error('usage: s3rver-process.ts <directory>');
// An optional port lets a test restart the stand-in where its clients expect it.
const server = new S3rver({ address: '127.0.0.1', port: Number(process.argv[3] ?? 0), silent: true, directory, vhostBuckets: false });
// The router is the last middleware; the shim must see requests after vhost rewriting and before the router.
server.middleware.splice(server.middleware.length - 1, 0, conditionalWrites(server.store));
const address = (await server.run()) as { port: number };
process.stdout.write(`READY ${address.port}\n`);
process.on('SIGTERM', () => {
  server.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
