import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnReadyChild, stopChild, tsxNodeArgs } from './processes.js';

/** A running s3rver (with conditional writes) over a temporary directory. Access key `S3RVER`, path-style. */
export interface S3Local {
  endpoint: string;
  /** Where s3rver keeps the objects (for tests that scan what is stored). */
  directory: string;
  stop(): Promise<void>;
}

const ENTRY = fileURLToPath(new URL('./s3rver-process.ts', import.meta.url));

/** Starts s3rver in a child node process (`--openssl-legacy-provider`) on a free port. */
export async function startS3rver(): Promise<S3Local> {
  const directory = await mkdtemp(join(tmpdir(), 'stackyard-s3-'));
  try {
    const { child, port } = await spawnReadyChild(
      's3rver',
      process.execPath,
      ['--openssl-legacy-provider', ...tsxNodeArgs(), ENTRY, directory],
      { env: process.env },
    );
    return {
      endpoint: `http://127.0.0.1:${port}`,
      directory,
      stop: async () => {
        await stopChild(child);
        await rm(directory, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
}
