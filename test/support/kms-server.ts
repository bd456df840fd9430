import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { spawnReadyChild, stopChild, tsxNodeArgs } from './processes.js';

/** A running KMS stand-in process with one seeded key. */
export interface KmsStandIn {
  endpoint: string;
  /** UUID of the seeded key. */
  keyId: string;
  /** `alias/stackyard-test`, pointing at the seeded key. */
  alias: string;
  stop(): Promise<void>;
}

const SERVER = fileURLToPath(new URL('./kms-protocol-server.ts', import.meta.url));

/** Starts our KMS-protocol server (kms-protocol-server.ts) as a separate node process on a free port. */
export async function startKmsServer(): Promise<KmsStandIn> {
  const keyId = randomUUID();
  const alias = 'alias/stackyard-test';
  const { child, port } = await spawnReadyChild('KMS stand-in', process.execPath, [...tsxNodeArgs(), SERVER], {
    env: { ...process.env, PORT: '0', STACKYARD_KMS_SEED_KEY_ID: keyId, STACKYARD_KMS_SEED_ALIAS: alias },
  });
  return { endpoint: `http://127.0.0.1:${port}`, keyId, alias, stop: () => stopChild(child) };
}
