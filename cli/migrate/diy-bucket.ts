/**
 * Read-only access to a Pulumi DIY backend's storage: a folder (`file://<dir>`) or an S3 bucket
 * (`s3://bucket[/prefix]`, through the S3 API). Only listing and reading: migration never writes to its source.
 */
import { promises as fs } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { UserError } from '../output/errors.js';

export interface BucketObject {
  /** `/`-separated, relative to the backend's root (e.g. `.pulumi/stacks/web/dev.json`). */
  key: string;
  /** Epoch milliseconds. */
  modified: number;
}

export interface DiyBucket {
  /** Where it is, for messages and the migration marker (`file:///…`, `s3://bucket/prefix`). */
  readonly url: string;
  /** Every object under `prefix` (recursive), sorted by key. */
  list(prefix: string): Promise<BucketObject[]>;
  /** The object's bytes, or `undefined` when it does not exist. */
  read(key: string): Promise<Buffer | undefined>;
  close(): void;
}

export function folderBucket(dir: string): DiyBucket {
  const root = resolve(dir);
  return {
    url: `file://${root}`,
    async list(prefix) {
      const base = join(root, ...prefix.split('/').filter(Boolean));
      const entries = await fs.readdir(base, { withFileTypes: true, recursive: true }).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return [];
        throw error;
      });
      const objects: BucketObject[] = [];
      for (const entry of entries) {
        if (!entry.isFile()) continue;
        const path = join(entry.parentPath, entry.name);
        const stat = await fs.stat(path);
        objects.push({ key: relative(root, path).split(sep).join('/'), modified: stat.mtimeMs });
      }
      return objects.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },
    async read(key) {
      return fs.readFile(join(root, ...key.split('/'))).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
      });
    },
    close() {},
  };
}

/**
 * `s3://bucket[/prefix][?region=…&endpoint=…]`, the form `pulumi login s3://…` takes. A custom endpoint (the
 * parameter, or AWS_ENDPOINT_URL_S3) means an S3-compatible server: path-style addressing and only the checksums S3
 * requires.
 */
export async function s3Bucket(url: string, env: NodeJS.ProcessEnv): Promise<DiyBucket> {
  const parsed = new URL(url);
  const bucket = parsed.host;
  if (!bucket) throw new UserError(`'${url}' names no bucket`, 'Use s3://<bucket>[/<prefix>].');
  const prefix = parsed.pathname.replace(/^\/+|\/+$/g, '');
  const region = parsed.searchParams.get('region') ?? undefined;
  const endpoint = parsed.searchParams.get('endpoint') ?? undefined;
  const custom = Boolean(endpoint || env.AWS_ENDPOINT_URL_S3);
  const client = new S3Client({
    ...(region ? { region } : env.AWS_REGION || env.AWS_DEFAULT_REGION ? {} : { region: 'us-east-1' }),
    ...(endpoint ? { endpoint } : {}),
    ...(custom ? { forcePathStyle: true, requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' } : {}),
  });
  const full = (key: string) => (prefix ? `${prefix}/${key}` : key);
  const fail = (what: string, error: unknown): never => {
    throw new UserError(
      `could not ${what} in ${url}: ${(error as { name?: string }).name ?? 'Error'}: ${(error as Error).message}`,
      'Check the bucket name, your AWS credentials and region (s3://bucket?region=…), and s3:ListBucket/s3:GetObject permissions.',
    );
  };
  return {
    url: `s3://${bucket}${prefix ? `/${prefix}` : ''}`,
    async list(under) {
      const objects: BucketObject[] = [];
      let token: string | undefined;
      do {
        const page = await client
          .send(new ListObjectsV2Command({ Bucket: bucket, Prefix: full(under), ContinuationToken: token }))
          .catch((error: unknown) => fail('list objects', error));
        for (const item of page.Contents ?? []) {
          if (!item.Key) continue;
          objects.push({ key: prefix ? item.Key.slice(prefix.length + 1) : item.Key, modified: item.LastModified?.getTime() ?? 0 });
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return objects.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },
    async read(key) {
      try {
        const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: full(key) }));
        return Buffer.from(await answer.Body!.transformToByteArray());
      } catch (error) {
        if ((error as { name?: string }).name === 'NoSuchKey') return undefined;
        return fail(`read ${key}`, error);
      }
    },
    close() {
      client.destroy();
    },
  };
}

/** The bucket a `--from` URL names, or `undefined` when it is not a DIY URL. */
export async function openDiyBucket(url: string, env: NodeJS.ProcessEnv, cwd: string): Promise<DiyBucket | undefined> {
  if (url.startsWith('s3://')) return s3Bucket(url, env);
  if (url.startsWith('file://')) {
    const rest = url.slice('file://'.length);
    const dir = rest.startsWith('/') ? fileURLToPath(url) : resolve(cwd, rest);
    return folderBucket(dir);
  }
  return undefined;
}
