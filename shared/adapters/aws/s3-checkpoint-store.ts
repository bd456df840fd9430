import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { constants, createGunzip, gzip } from 'node:zlib';
import { ConflictError, InvalidInputError, NotFoundError, TooLargeError, UnavailableError } from '../../core/errors.js';
import {
  INFLATE_CHUNK_BYTES,
  MAX_OBJECT_BYTES,
  type CheckpointStore,
  type ObjectKey,
  type PreparedObject,
} from '../../ports/checkpoint-store.js';
import { requireStackId } from './dynamodb-stack-items.js';
import { errorName, isTransient } from './errors.js';

/**
 * Version of the object key layout. Bump it (and migrate) if the layout below ever changes, so old and new
 * objects can never be confused: `v1/stacks/<stackId>/<name>`, body gzip-compressed.
 */
export const OBJECT_LAYOUT_VERSION = 'v1';
const SEGMENT = /^[A-Za-z0-9._-]+$/;
/*
 * Checkpoint saves sit on the update's critical path: the fastest level costs half the CPU of the default for
 * about 7% more bytes on typical deployment JSON.
 */
const GZIP_OPTIONS = { level: constants.Z_BEST_SPEED };
const gzipAsync = promisify(gzip);

function requireName(name: unknown): string {
  if (typeof name !== 'string' || name.length === 0 || name.length > 512) {
    throw new InvalidInputError('Invalid object name: expected 1 to 512 characters.');
  }
  for (const segment of name.split('/')) {
    if (!SEGMENT.test(segment) || segment === '.' || segment === '..') {
      throw new InvalidInputError(
        `Invalid object name '${name.slice(0, 100)}': segments are letters, digits, '.', '_' or '-' (not '.' or '..').`,
      );
    }
  }
  return name;
}

function requirePrefix(prefix: unknown): string {
  if (typeof prefix !== 'string' || prefix.length > 512 || !/^[A-Za-z0-9._/-]*$/.test(prefix) || prefix.startsWith('/')) {
    throw new InvalidInputError('Invalid object prefix: expected letters, digits, \'.\', \'_\', \'-\' or \'/\'.');
  }
  return prefix;
}

function requirePrepared(body: PreparedObject): PreparedObject {
  if (!(body?.gzipped instanceof Uint8Array) || body.size > MAX_OBJECT_BYTES) {
    throw new InvalidInputError('Object bodies must be bytes or come from prepare().');
  }
  return body;
}

/** An S3 failure as the domain error a caller can act on (a missing bucket, a transient failure), else itself. */
export function unavailable(error: unknown): unknown {
  if (errorName(error) === 'NoSuchBucket') {
    return new UnavailableError('The state bucket does not exist; check STACKYARD_BUCKET.', { cause: error });
  }
  return isTransient(error)
    ? new UnavailableError(`S3 is unavailable (${errorName(error)}); try again shortly.`, { cause: error })
    : error;
}

/** Immutable, gzip-compressed objects in the state bucket under `v1/stacks/<stackId>/`. */
export class S3CheckpointStore implements CheckpointStore {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async prepare(body: Uint8Array): Promise<PreparedObject> {
    if (!(body instanceof Uint8Array)) throw new InvalidInputError('Object bodies must be bytes.');
    if (body.byteLength > MAX_OBJECT_BYTES) {
      throw new TooLargeError(
        `An object of ${body.byteLength} bytes is over the limit of ${MAX_OBJECT_BYTES} bytes (50 MB) uncompressed.`,
      );
    }
    return { gzipped: await gzipAsync(body, GZIP_OPTIONS), size: body.byteLength };
  }

  async put(key: ObjectKey, body: Uint8Array | PreparedObject): Promise<void> {
    const objectKey = this.objectKey(key);
    const { gzipped } = body instanceof Uint8Array ? await this.prepare(body) : requirePrepared(body);
    /*
     * Objects are immutable: S3 refuses the write if the key exists. One PutObject whatever the size: a body is at
     * most MAX_OBJECT_BYTES (50 MB) before gzip, so at most a few bytes more after it, a hundredth of PutObject's
     * 5 GB limit, and it is already in memory, so a multipart upload would only add requests (and leave parts behind
     * when it fails half-way).
     */
    const params = {
      Bucket: this.bucket,
      Key: objectKey,
      Body: gzipped,
      ContentType: 'application/gzip',
      IfNoneMatch: '*',
    };
    try {
      await this.s3.send(new PutObjectCommand(params));
    } catch (error) {
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      const name = errorName(error);
      if (name === 'PreconditionFailed' || name === 'ConditionalRequestConflict' || status === 412) {
        throw new ConflictError(`Object ${key.name} already exists; objects are never overwritten.`, { name: key.name }, {
          cause: error,
        });
      }
      throw unavailable(error);
    }
  }

  async get(key: ObjectKey): Promise<Uint8Array> {
    const objectKey = this.objectKey(key);
    let response;
    try {
      response = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: objectKey }));
    } catch (error) {
      if (errorName(error) === 'NoSuchKey' || errorName(error) === 'NotFound') {
        throw new NotFoundError(`Object ${key.name} of stack ${key.stackId} does not exist.`, { cause: error });
      }
      throw unavailable(error);
    }
    const chunks: Buffer[] = [];
    let total = 0;
    try {
      await pipeline(response.Body as Readable, createGunzip({ chunkSize: INFLATE_CHUNK_BYTES }), async (source: AsyncIterable<Buffer>) => {
        for await (const chunk of source) {
          total += chunk.length;
          // A body can never legitimately inflate past the write limit; stop rather than exhaust memory.
          if (total > MAX_OBJECT_BYTES) throw new TooLargeError(`Object ${key.name} inflates past the size limit.`);
          chunks.push(chunk);
        }
      });
    } catch (error) {
      if (error instanceof TooLargeError) throw error;
      if ((error as NodeJS.ErrnoException).code?.startsWith('Z_')) {
        throw new InvalidInputError(`Object ${key.name} is not a valid gzip stream.`, { cause: error });
      }
      throw unavailable(error);
    }
    return new Uint8Array(Buffer.concat(chunks, total));
  }

  async list(stackId: string, prefix: string): Promise<string[]> {
    const base = this.stackPrefix(stackId);
    const full = base + requirePrefix(prefix);
    const names: string[] = [];
    let token: string | undefined;
    try {
      do {
        const page = await this.s3.send(
          new ListObjectsV2Command({ Bucket: this.bucket, Prefix: full, ContinuationToken: token }),
        );
        for (const object of page.Contents ?? []) if (object.Key) names.push(object.Key.slice(base.length));
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    } catch (error) {
      throw unavailable(error);
    }
    return names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  private stackPrefix(stackId: string): string {
    return `${OBJECT_LAYOUT_VERSION}/stacks/${requireStackId(stackId)}/`;
  }

  private objectKey(key: ObjectKey): string {
    if (key === null || typeof key !== 'object') throw new InvalidInputError('Object keys need a stackId and a name.');
    return this.stackPrefix(key.stackId) + requireName(key.name);
  }
}
