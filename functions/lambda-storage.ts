import { awsStorageOptionsFromEnv, type AwsStorageOptions } from '../shared/adapters/aws/options.js';
import { assembleAwsStorage, type AwsObjectParts } from '../shared/adapters/aws/assemble.js';
import { createDocumentClients } from '../shared/adapters/aws/clients.js';
import type { TableStore } from '../shared/adapters/aws/table-stores.js';
import type { Storage } from '../shared/ports/index.js';

/**
 * One optional part of a Lambda function's storage (storage-parts/: S3, KMS); the table is always there. Each entry
 * under handlers/ imports only the parts its routes use, so esbuild leaves the other clients out of that bundle
 * (docs/deploy.md, "What each function bundles"). Each part is its own module because a module a bundle imports is
 * kept with its imports' side effects (the SDK clients' modules have some) even when nothing in it is called. Parts are built once
 * per cold start, on the first request.
 */
export type StorageParts = (
  options: AwsStorageOptions,
  now: () => number,
  instrument: InstrumentClient,
) => { parts: AwsObjectParts; destroy(): void };

/** Hands each SDK client to the tracer as it is made (functions/observability.ts); the identity by default. */
export type InstrumentClient = <T>(client: T) => T;

/**
 * The storage of a function: the table `stores` its routes use (shared/adapters/aws/table-stores.ts) plus `parts`
 * (STACKYARD_TABLE, _BUCKET, _KMS_KEY_ID from `env`).
 */
export function lambdaStorage(
  stores: readonly TableStore[],
  parts: readonly StorageParts[],
  env: NodeJS.ProcessEnv = process.env,
  instrument: InstrumentClient = (client) => client,
): Storage {
  const options = awsStorageOptionsFromEnv(env);
  const now = Date.now;
  const { dynamodb, documents } = createDocumentClients();
  // The document client sends through the DynamoDB client's middleware stack, so this traces both.
  instrument(dynamodb);
  const built = parts.map((part) => part(options, now, instrument));
  return assembleAwsStorage(
    {
      table: options.table,
      now,
      documents,
      stores,
      close() {
        documents.destroy();
        dynamodb.destroy();
        for (const part of built) part.destroy();
      },
    },
    Object.assign({}, ...built.map((part) => part.parts)) as AwsObjectParts,
  );
}
