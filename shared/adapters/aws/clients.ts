import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { S3Client } from '@aws-sdk/client-s3';

/** The SDK clients one Storage uses; created once per process (per Lambda cold start). */
export interface AwsClients {
  dynamodb: DynamoDBClient;
  documents: DynamoDBDocumentClient;
  s3: S3Client;
  kms: KMSClient;
  destroy(): void;
}

/**
 * Without timeouts a storage endpoint that accepts connections but never answers (a frozen or overloaded host) would
 * hold a request until the Lambda itself times out, answering a bare 504 instead of our 503 with Retry-After. With
 * them, the SDK's three attempts give up well inside API Gateway's 29 s: each waits at most `connectionTimeout` to
 * connect and `requestTimeout` of silence on the socket (not of total time: a large upload that keeps moving is fine).
 */
const DYNAMODB_TIMEOUTS = { connectionTimeout: 2_000, requestTimeout: 5_000 };
const KMS_TIMEOUTS = { connectionTimeout: 2_000, requestTimeout: 5_000 };
const S3_TIMEOUTS = { connectionTimeout: 2_000, requestTimeout: 8_000 };

/**
 * Builds the clients. Endpoints, region and credentials come from the SDK's own configuration chain, which honours
 * AWS_ENDPOINT_URL_DYNAMODB/_S3/_KMS.
 */
export function createAwsClients(env: NodeJS.ProcessEnv = process.env): AwsClients {
  const { dynamodb, documents } = createDocumentClients();
  const s3 = createS3Client(env);
  const kms = createKmsClient();
  return {
    dynamodb,
    documents,
    s3,
    kms,
    destroy() {
      documents.destroy();
      dynamodb.destroy();
      s3.destroy();
      kms.destroy();
    },
  };
}

/** The DynamoDB client and the document client over it, as every store uses them. */
export function createDocumentClients(): { dynamodb: DynamoDBClient; documents: DynamoDBDocumentClient } {
  const dynamodb = new DynamoDBClient({ requestHandler: DYNAMODB_TIMEOUTS });
  const documents = DynamoDBDocumentClient.from(dynamodb, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  return { dynamodb, documents };
}

/**
 * An S3 client from the SDK's configuration chain. A custom S3 endpoint means a local stand-in: it needs path-style
 * addressing and only the checksums S3 requires (s3rver stores `aws-chunked` framing as data otherwise).
 */
export function createS3Client(env: NodeJS.ProcessEnv = process.env): S3Client {
  return new S3Client(
    env.AWS_ENDPOINT_URL_S3
      ? { forcePathStyle: true, requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED', requestHandler: S3_TIMEOUTS }
      : { requestHandler: S3_TIMEOUTS },
  );
}

/** A KMS client from the SDK's configuration chain (AWS_ENDPOINT_URL_KMS included). */
export function createKmsClient(): KMSClient {
  return new KMSClient({ requestHandler: KMS_TIMEOUTS });
}
