/**
 * The two parts of the Lambda SDK that hooks use, loaded lazily by `sdkLambdaInvoker`. Importing the package itself
 * lazily would hand bundlers its whole namespace (every command, paginator, waiter, error and enum: about 60 KB of
 * each Lambda bundle); named re-exports let them keep only these.
 */
export { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
