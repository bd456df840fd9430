import { TooLargeError, UnavailableError } from '../../core/errors.js';

/** The parts of an AWS SDK v3 error the adapters look at. */
export interface SdkError extends Error {
  code?: string;
  $fault?: 'client' | 'server';
  $metadata?: { httpStatusCode?: number };
  $retryable?: unknown;
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'EHOSTUNREACH']);
const THROTTLING = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'TooManyRequestsException',
  'SlowDown',
  'TimeoutError',
  'RequestTimeout',
]);

export function errorName(error: unknown): string | undefined {
  return error instanceof Error ? error.name : undefined;
}

/** True for failures where the service was unreachable, overloaded or broken, so a later retry may work. */
export function isTransient(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const sdk = error as SdkError;
  if (sdk.code && NETWORK_CODES.has(sdk.code)) return true;
  if (THROTTLING.has(sdk.name)) return true;
  return sdk.$fault === 'server' || (sdk.$metadata?.httpStatusCode ?? 0) >= 500;
}

/**
 * Errors every DynamoDB call may raise that map the same way everywhere: oversized items become `TooLargeError`,
 * outages `UnavailableError`. Anything else is returned untouched for the caller to rethrow.
 */
export function translateDynamoDbError(error: unknown, what: string): unknown {
  const name = errorName(error);
  const message = error instanceof Error ? error.message : '';
  if (name === 'ValidationException' && /item size|maximum allowed size|exceeds the maximum/i.test(message)) {
    return new TooLargeError(`${what} is too large to store (DynamoDB items are limited to 400 KB).`, { cause: error });
  }
  if (name === 'ResourceNotFoundException') {
    return new UnavailableError(`The Stackyard table is missing or not ready (${message}). Check STACKYARD_TABLE.`, {
      cause: error,
    });
  }
  if (isTransient(error)) {
    return new UnavailableError(`DynamoDB is unavailable (${name}); try again shortly.`, { cause: error });
  }
  return error;
}
