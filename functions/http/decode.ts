import { promisify } from 'node:util';
import { createGunzip, gunzip } from 'node:zlib';
import { en } from 'zod/locales';
import * as z from 'zod/mini';
import { InvalidInputError, TooLargeError } from '../../shared/core/errors.js';
import { decodedTooLarge, MAX_DECODED_BODY_BYTES, MAX_REQUEST_BODY_BYTES, requestTooLarge } from './limits.js';
import type { HttpRequest } from './types.js';

const gunzipAsync = promisify(gunzip);

/*
 * The request schemas are zod/mini's (a fraction of classic zod's bytes in each Lambda bundle), which, unlike
 * classic zod, loads no messages by itself: without this, every 400 would read "Invalid input". These are the
 * English messages classic zod configures as it loads, so the answers stay word for word what they were.
 */
z.config(en());

/**
 * The one request decoder: enforces the wire cap, inflates `Content-Encoding: gzip` (bounded, so a bomb is a 413
 * and not an out-of-memory), and returns the exact bytes. Checkpoint verbatim/delta and journal routes hand these
 * bytes to the services untouched, because deltas are byte offsets into them.
 */
export async function decodeBody(request: HttpRequest, maxDecoded = MAX_DECODED_BODY_BYTES): Promise<Buffer> {
  if (!wireEncoding(request) || request.body.length === 0) return request.body;
  try {
    return await gunzipAsync(request.body, { maxOutputLength: maxDecoded, chunkSize: inflateChunkSize(request.body, maxDecoded) });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw decodedTooLarge(maxDecoded);
    throw notGzip();
  }
}

/**
 * The same bytes as `decodeBody`, with the same caps and errors, but inflated a chunk at a time as the caller reads
 * them, so a large gzip body is never held inflated all at once. Each call inflates from the start again.
 */
export async function* decodeBodyChunks(request: HttpRequest, maxDecoded = MAX_DECODED_BODY_BYTES): AsyncGenerator<Buffer> {
  if (!wireEncoding(request) || request.body.length === 0) {
    yield request.body;
    return;
  }
  const whole = inflateChunkSize(request.body, maxDecoded);
  const inflating = createGunzip({ chunkSize: whole <= ONE_CHUNK_UP_TO ? whole : STREAMED_CHUNK });
  inflating.end(request.body);
  let inflated = 0;
  try {
    for await (const chunk of inflating as AsyncIterable<Buffer>) {
      inflated += chunk.length;
      if (inflated > maxDecoded) throw decodedTooLarge(maxDecoded);
      yield chunk;
    }
  } catch (error) {
    throw error instanceof TooLargeError ? error : notGzip();
  } finally {
    inflating.destroy();
  }
}

/**
 * A body that says it inflates to at most this much comes as one chunk: one round trip to the zlib thread, and the
 * caller, which parses such a small document whole anyway, has nothing to join.
 */
const ONE_CHUNK_UP_TO = 2 * 1024 * 1024;
/** The chunks a larger body is inflated into: a few round trips to the zlib thread per megabyte, little held at a time. */
const STREAMED_CHUNK = 256 * 1024;

/** Checks the wire cap and the encoding: whether the body is gzip (`false`: the body is the bytes). */
function wireEncoding(request: HttpRequest): boolean {
  if (request.body.length > MAX_REQUEST_BODY_BYTES) {
    // `serve` stops reading at the cap, so the declared length is the better figure to report.
    const declared = Number(request.headers['content-length']);
    throw requestTooLarge(Number.isFinite(declared) ? Math.max(declared, request.body.length) : request.body.length);
  }
  const encoding = contentEncoding(request);
  if (encoding === '' || encoding === 'identity') return false;
  if (encoding !== 'gzip' && encoding !== 'x-gzip') {
    throw new InvalidInputError(
      `Content-Encoding '${encoding.slice(0, 40)}' is not supported: send the body as is, or gzip-compressed with ` +
        `Content-Encoding: gzip.`,
    );
  }
  return true;
}

function notGzip(): InvalidInputError {
  return new InvalidInputError(
    'The request says Content-Encoding: gzip but its body is not valid gzip data. Compress the whole body, or ' +
      'drop the header.',
  );
}

/**
 * Output chunk size for inflating `gzipped`. Each chunk is a round trip between the zlib thread and the event loop,
 * so zlib's 16 KiB default made a 1 MB checkpoint 64 round trips (about 4x slower than a few large ones). And every
 * chunk is a buffer of its own that `gunzip` then copies into one result: a 40 MB state inflated in 1 MB chunks
 * held 80 MB until the garbage collector got to the chunks. A gzip member ends with the size of its input (ISIZE,
 * mod 2^32), so a chunk one byte larger holds the whole output and is returned as is, without the copy. That size is
 * the client's claim: it only sizes the buffer (capped one byte past the limit, so a bomb still stops there). zlib
 * refuses a false one when it reads the trailer; with several gzip members it is the last one's size, and the
 * output just comes in more chunks. Untouched pages of a buffer larger than its output are never resident.
 */
function inflateChunkSize(gzipped: Buffer, maxDecoded: number): number {
  // JSON state compresses about 4-15x; this bounds the buffer when the declared size is missing or smaller.
  const fromRatio = Math.min(Math.max(gzipped.length * 4, 16 * 1024), 1024 * 1024);
  const declared = gzipped.length >= GZIP_MIN_LENGTH ? gzipped.readUInt32LE(gzipped.length - 4) : 0;
  return Math.max(fromRatio, Math.min(declared + 1, maxDecoded + 1));
}

/** A gzip member's 10-byte header and 8-byte trailer (CRC-32, ISIZE). */
const GZIP_MIN_LENGTH = 18;

function contentEncoding(request: HttpRequest): string {
  return (request.headers['content-encoding'] ?? '').trim().toLowerCase();
}

/** Whether the body on the wire is gzip (then `decodeBody` inflates it). */
export function isGzipped(request: HttpRequest): boolean {
  const encoding = contentEncoding(request);
  return encoding === 'gzip' || encoding === 'x-gzip';
}

/**
 * Parses decoded bytes as JSON. An empty body is "no body" (`undefined`): the Pulumi CLI sends
 * `Content-Type: application/json` with empty bodies on GET, DELETE and cancel.
 */
export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (error) {
    const detail = error instanceof SyntaxError ? `: ${error.message.slice(0, 200)}` : '';
    throw new InvalidInputError(`The request body is not valid JSON${detail}. Send a JSON document.`);
  }
}

/** Validates a parsed body with zod; the first problem becomes a 400 naming the field. */
export function validateBody<T extends z.ZodMiniType>(schema: T, value: unknown, what: string): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  if (value === undefined) throw new InvalidInputError(`Invalid ${what}: the request has no body; send a JSON object.`);
  const issue = result.error.issues[0]!;
  const field = issue.path.length > 0 ? `field '${issue.path.map(String).join('.')}'` : 'the body';
  throw new InvalidInputError(`Invalid ${what}: ${field}: ${issue.message}.`);
}
