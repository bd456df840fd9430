import { TooLargeError } from '../../shared/core/errors.js';
import { MAX_OBJECT_BYTES } from '../../shared/ports/index.js';

/**
 * A synchronous Lambda invoke carries at most 6 MB (6,291,456 bytes) of request payload. API Gateway puts a gzip
 * body into the event as base64 (4/3 of its size) next to headers and the request context, so the largest wire
 * body that always fits is (6,291,456 - 256 KiB for the envelope) x 3/4 = 4,521,984 bytes. `serve` enforces the
 * same cap so nothing passes locally that a deployment would refuse.
 */
export const MAX_REQUEST_BODY_BYTES = 4_521_984;

/**
 * Largest body a gzip request may inflate to: the biggest object the checkpoint store accepts. Anything bigger is
 * refused while inflating, so a compression bomb costs at most this much memory.
 */
export const MAX_DECODED_BODY_BYTES = MAX_OBJECT_BYTES;

/** The same 6 MB bound applies to what a Lambda returns, base64 included for compressed bodies. */
export const MAX_RESPONSE_BODY_BYTES = 4_521_984;

const megabytes = (bytes: number) => `${(bytes / 1_000_000).toFixed(1)} MB`;

/** What a client should do when its request is over the cap: keep requests small with incremental saves. */
export function requestTooLarge(received: number, limit = MAX_REQUEST_BODY_BYTES): TooLargeError {
  return new TooLargeError(
    `Request body of ${megabytes(received)} is over the ${megabytes(limit)} this API accepts (a Lambda invoke carries ` +
      `at most 6 MB). Send it gzip-compressed (Content-Encoding: gzip), and let the CLI save state incrementally: ` +
      `leave PULUMI_OPTIMIZED_CHECKPOINT_PATCH and journaling on (do not set PULUMI_DISABLE_JOURNALING), or use ` +
      `the stackyard CLI, which always does.`,
  );
}

export function decodedTooLarge(limit = MAX_DECODED_BODY_BYTES): TooLargeError {
  return new TooLargeError(
    `Request body inflates to more than ${megabytes(limit)}, the largest state Stackyard stores. Split the work ` +
      `(smaller stacks), or let the CLI save state incrementally with journaling and delta checkpoints.`,
  );
}

export function responseTooLarge(size: number): TooLargeError {
  return new TooLargeError(
    `The response (${megabytes(size)} after compression) is over the ${megabytes(MAX_RESPONSE_BODY_BYTES)} a Lambda ` +
      `can return. Send Accept-Encoding: gzip, or read the state with 'stackyard stack export' against local ` +
      `storage or from the bucket (docs/operations.md).`,
  );
}
