import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildProcess } from 'node:child_process';
import { spawnReadyChild, stopChild, tsxNodeArgs } from './processes.js';

/** A running s3rver (with conditional writes) over a temporary directory. Access key `S3RVER`, path-style. */
export interface S3Local {
  endpoint: string;
  /** Where s3rver keeps the objects (for tests that scan what is stored). */
  directory: string;
  stop(): Promise<void>;
  /** The guarded child (its own child is the server process). */
  child: ChildProcess;
}

export interface S3LocalOptions {
  /** Listen here instead of on a free port (to restart it where clients expect it). */
  port?: number;
  /** Serve this directory and keep it on stop (default: a fresh one, removed on stop). */
  directory?: string;
}

const ENTRY = fileURLToPath(new URL('./s3rver-process.ts', import.meta.url));

/** Starts s3rver in a child node process (`--openssl-legacy-provider`) on a free port. */
export async function startS3rver(options: S3LocalOptions = {}): Promise<S3Local> {
  const owned = options.directory === undefined;
  const directory = options.directory ?? (await mkdtemp(join(tmpdir(), 'stackyard-s3-')));
  try {
    const { child, port } = await spawnReadyChild(
      's3rver',
      process.execPath,
      ['--openssl-legacy-provider', ...tsxNodeArgs(), ENTRY, directory, String(options.port ?? 0)],
      { env: process.env },
    );
    return {
      endpoint: `http://127.0.0.1:${port}`,
      child,
      directory,
      stop: async () => {
        await stopChild(child);
        if (owned) await rm(directory, { recursive: true, force: true });
      },
    };
  } catch (error) {
    if (owned) await rm(directory, { recursive: true, force: true });
    throw error;
  }
}
