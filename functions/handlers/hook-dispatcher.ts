import { Logger } from '@aws-lambda-powertools/logger';
import { createDocumentClients, createKmsClient } from '../../shared/adapters/aws/clients.js';
import { DynamoDbHookStore } from '../../shared/adapters/aws/dynamodb-hook-store.js';
import { KmsKeyService } from '../../shared/adapters/aws/kms-key-service.js';
import { createHookDispatcherHandler } from '../hook-dispatcher.js';
import { DEPLOYMENT_VARIABLE, hookOptionsFromEnv } from '../hook-settings.js';
import { createTracer, tracingMiddleware } from '../observability.js';

const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'stackyard',
  persistentKeys: { handlerGroup: 'hook-dispatcher' },
});
const tracer = createTracer();

/**
 * Entry point of the hook dispatcher, invoked by the table's stream (outbox inserts) and by the one-minute schedule
 * (docs/hooks.md, "AWS wiring"). It needs the table (STACKYARD_TABLE) and the KMS key that seals the hooks' signing
 * secrets (STACKYARD_KMS_KEY_ID); the store is built on the first invocation, once per cold start.
 */
export const handler = createHookDispatcherHandler(
  logger,
  () => {
    const table = process.env.STACKYARD_TABLE;
    const keyId = process.env.STACKYARD_KMS_KEY_ID;
    if (!table || !keyId) throw new Error('The hook dispatcher is not configured: set STACKYARD_TABLE and STACKYARD_KMS_KEY_ID.');
    // Only the clients it uses, so the dispatcher's bundle carries no S3 client.
    const { dynamodb, documents } = createDocumentClients();
    const kms = createKmsClient();
    tracer.captureAWSv3Client(dynamodb);
    tracer.captureAWSv3Client(kms);
    return {
      hooks: new DynamoDbHookStore(documents, table),
      keys: new KmsKeyService(kms, keyId),
      dispatch: hookOptionsFromEnv(process.env),
      deployment: process.env[DEPLOYMENT_VARIABLE] || 'stackyard',
    };
  },
  { middlewares: [tracingMiddleware(tracer)] },
);
