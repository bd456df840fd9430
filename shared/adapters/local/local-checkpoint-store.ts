import { createReadStream, promises as fs } from 'node:fs';
import { join } from 'node:path';
import { ConflictError, InvalidInputError, NotFoundError, TooLargeError } from '../../core/errors.js';
import { INFLATE_CHUNK_BYTES, MAX_OBJECT_BYTES, type CheckpointStore, type ObjectKey, type PreparedObject } from '../../ports/index.js';
import { code, safeSegment, type DataDir } from './files.js';

const SEGMENT = /^[A-Za-z0-9._-]+$/;
const SUFFIX = '.gz';
/**
 * Compression and streams, loaded by the first object read or write: a command that lists stacks needs neither (nor
 * node:util, whose ES-module facade loads worker_threads and more on Node 22).
 */
async function loadCodec() {
  const [zlib, stream, streamPromises, { promisify }] = await Promise.all([
    import('node:zlib'),
    import('node:stream'),
    import('node:stream/promises'),
    import('node:util'),
  ]);
  return { gzip: promisify(zlib.gzip), createGunzip: zlib.createGunzip, Writable: stream.Writable, pipeline: streamPromises.pipeline };
}
let codecLoaded: ReturnType<typeof loadCodec> | undefined;
const codec = () => (codecLoaded ??= loadCodec());

/** Immutable gzip objects under `objects/<stackId>/<name>.gz`; published with `link`, so a second put cannot win. */
export class LocalCheckpointStore implements CheckpointStore {
  constructor(private readonly dir: DataDir) {}

  async prepare(body: Uint8Array): Promise<PreparedObject> {
    if (!(body instanceof Uint8Array)) throw new InvalidInputError('Object bodies must be bytes.');
    if (body.byteLength > MAX_OBJECT_BYTES) {
      throw new TooLargeError(`An object of ${body.byteLength} bytes is over the limit of ${MAX_OBJECT_BYTES}.`);
    }
    const { gzip } = await codec();
    return { gzipped: await gzip(body), size: body.byteLength };
  }

  async put(key: ObjectKey, body: Uint8Array | PreparedObject): Promise<void> {
    const target = this.objectPath(key);
    const prepared = body instanceof Uint8Array ? await this.prepare(body) : body;
    if (!(prepared?.gzipped instanceof Uint8Array) || prepared.size > MAX_OBJECT_BYTES) {
      throw new InvalidInputError('Object bodies must be bytes or come from prepare().');
    }
    const temp = await this.dir.writeTemp(prepared.gzipped);
    if (!(await this.dir.publishExclusive(temp, target))) {
      throw new ConflictError(`Object '${key.name}' already exists; objects are immutable.`, { name: key.name });
    }
  }

  async get(key: ObjectKey): Promise<Uint8Array> {
    const target = this.objectPath(key);
    const { Writable, createGunzip, pipeline } = await codec();
    const chunks: Buffer[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(chunk);
        callback();
      },
    });
    try {
      await pipeline(createReadStream(target), createGunzip({ chunkSize: INFLATE_CHUNK_BYTES }), sink);
    } catch (error) {
      if (code(error) === 'ENOENT' || code(error) === 'ENOTDIR') {
        throw new NotFoundError(`Object '${key.name}' does not exist.`);
      }
      throw error;
    }
    return Buffer.concat(chunks);
  }

  async list(stackId: string, prefix: string): Promise<string[]> {
    const root = this.dir.path('objects', safeSegment(stackId, 'stack id'));
    const names: string[] = [];
    const walk = async (dir: string, rel: string): Promise<void> => {
      let entries;
      try {
        entries = await fs.readdir(dir, { withFileTypes: true });
      } catch (error) {
        if (code(error) === 'ENOENT') return;
        throw error;
      }
      for (const entry of entries) {
        const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
        // Only folders that can hold a match are opened, so listing one update's objects costs what that update
        // stored, not the stack's whole history.
        if (entry.isDirectory()) {
          if (`${path}/`.startsWith(prefix) || prefix.startsWith(`${path}/`)) await walk(join(dir, entry.name), path);
        } else if (entry.name.endsWith(SUFFIX)) names.push(path.slice(0, -SUFFIX.length));
      }
    };
    await walk(root, '');
    return names.filter((name) => name.startsWith(prefix)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  private objectPath(key: ObjectKey): string {
    const stackId = safeSegment(key.stackId, 'stack id');
    const segments = typeof key.name === 'string' ? key.name.split('/') : [];
    if (
      segments.length === 0 ||
      key.name.length > 1024 ||
      segments.some((s) => !SEGMENT.test(s) || s === '.' || s === '..')
    ) {
      throw new InvalidInputError(
        `Invalid object name '${String(key.name).slice(0, 80)}': use '/'-separated segments of letters, ` +
          `digits, '.', '_' or '-'.`,
      );
    }
    const last = segments.length - 1;
    return this.dir.path('objects', stackId, ...segments.slice(0, last), segments[last] + SUFFIX);
  }
}
