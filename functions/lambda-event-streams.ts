/*
 * What the Lambda bundles get for `@smithy/core/event-streams` (an esbuild alias: LAMBDA_ALIASES in
 * infra/lib/constructs/api-functions.ts). Event streams carry the messages of the few operations that stream them; of
 * the clients the functions use, only S3's SelectObjectContent and Lambda's InvokeWithResponseStream do, and no
 * function sends either. Yet the S3 and Lambda clients build an event-stream marshaller when they are constructed,
 * and every protocol (DynamoDB's and KMS's too) imports the serde lazily, which in a one-file bundle means always: each
 * bundle carried the whole codec (about 15 KB). Here a client gets a marshaller that refuses to be used, and a
 * protocol asked for the serde gets one that refuses to be built: both fail the request with an error that says why.
 * infra/test/lambda-bundles.test.ts checks that no bundle sends an operation that streams events, and that the S3
 * and Lambda clients still construct and send with this module in place.
 */

function notBundled(): Error {
  return new Error(
    "Event streams are not bundled in Stackyard's Lambda functions (functions/lambda-event-streams.ts): no route " +
      'sends an operation that streams events.',
  );
}

/** The marshaller a client keeps in its configuration; only an event-stream operation would call it. */
const refusingMarshaller = {
  serialize(): never {
    throw notBundled();
  },
  deserialize(): never {
    throw notBundled();
  },
};

/** The client's configuration step: it stores the marshaller its provider makes, as the SDK's own step does. */
export function resolveEventStreamSerdeConfig<T extends { eventStreamSerdeProvider: (config: T) => unknown }>(
  input: T,
): T & { eventStreamMarshaller: unknown } {
  return Object.assign(input, { eventStreamMarshaller: input.eventStreamSerdeProvider(input) });
}

export function eventStreamSerdeProvider(): typeof refusingMarshaller {
  return refusingMarshaller;
}

/** What a protocol builds the first time an operation's request or answer is an event stream. */
export class EventStreamSerde {
  constructor() {
    throw notBundled();
  }
}
