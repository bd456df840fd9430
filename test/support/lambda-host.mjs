/*
 * One Lambda function, as a long-lived child process: imports the bundle given as argv[2] (nothing else of ours) and
 * answers each IPC message `{ id, event }` with `{ id, result }` or `{ id, error }` from `handler(event, context)`.
 * The logger writes to stdout, so results travel over IPC.
 */
import { pathToFileURL } from 'node:url';

const { handler } = await import(pathToFileURL(process.argv[2]).href);

process.on('message', async ({ id, event }) => {
  const context = {
    functionName: process.env.STACKYARD_TEST_FUNCTION ?? 'stackyard-test',
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${process.env.STACKYARD_TEST_FUNCTION ?? 'stackyard-test'}`,
    memoryLimitInMB: '1024',
    awsRequestId: event.requestContext.requestId,
    logGroupName: '/stackyard/test',
    logStreamName: 'test',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => 28_000,
    done() {},
    fail() {},
    succeed() {},
  };
  try {
    process.send({ id, result: await handler(event, context) });
  } catch (error) {
    process.send({ id, error: String(error?.stack ?? error) });
  }
});
process.send({ ready: true });
