import { randomUUID } from 'node:crypto';
import { createAwsClients, type AwsClients } from '../../shared/adapters/aws/clients.js';
import { createStackyardTable } from '../../shared/adapters/aws/table.js';
import { applyEnv } from './aws-stand-ins.js';
import { startDynamoDbLocal, type DynamoDbLocal } from './dynamodb-local.js';

/** A Stackyard table on its own DynamoDB Local, and `clients`: one AWS client set per contender. */
export interface RaceTable {
  table: string;
  clients: AwsClients[];
  /** Destroys the clients, restores the environment and stops DynamoDB Local. */
  stop(): Promise<void>;
}

/**
 * Starts DynamoDB Local with one fresh Stackyard table for a race test, and `contenders` separate client sets: one
 * connection pool each, as separate Lambda instances have, so concurrent calls really arrive side by side.
 */
export async function startRaceTable(contenders: number): Promise<RaceTable> {
  let dynamodb: DynamoDbLocal | undefined;
  let restoreEnv: (() => void) | undefined;
  let clients: AwsClients[] = [];
  const stop = async () => {
    for (const c of clients) c.destroy();
    restoreEnv?.();
    await dynamodb?.stop();
  };
  try {
    dynamodb = await startDynamoDbLocal();
    restoreEnv = applyEnv({
      AWS_ENDPOINT_URL_DYNAMODB: dynamodb.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    });
    const table = `race-${randomUUID().slice(0, 8)}`;
    clients = Array.from({ length: contenders }, () => createAwsClients());
    await createStackyardTable(clients[0]!.dynamodb, table);
    return { table, clients, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
