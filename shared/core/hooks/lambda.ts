import type { InvokeCommand as InvokeCommandType, LambdaClient } from '@aws-sdk/client-lambda';
import type { LambdaInvoker } from '../kernel/options.js';

/**
 * The SDK is loaded on the first invocation, not with this module: every process that can run hooks imports this, and
 * most of them (the CLI on local storage, API functions whose stacks have no Lambda hooks) never invoke one.
 */
export function sdkLambdaInvoker(client?: LambdaClient): LambdaInvoker {
  let sdk: Promise<{ client: LambdaClient; InvokeCommand: typeof InvokeCommandType }> | undefined;
  const load = () =>
    (sdk ??= import('./lambda-sdk.js').then(({ InvokeCommand, LambdaClient: Client }) => ({ client: client ?? new Client({}), InvokeCommand })));
  return {
    async invoke(arn, payload, mode, timeoutMs) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      try {
        const { client, InvokeCommand } = await load();
        const output = await client.send(
          new InvokeCommand({ FunctionName: arn, InvocationType: mode, Payload: Buffer.from(payload) }),
          { abortSignal: AbortSignal.timeout(timeoutMs) },
        );
        const body = output.Payload ? Buffer.from(output.Payload).toString('utf8') : undefined;
        if (output.FunctionError) {
          return { ok: false, latencyMs: elapsed(), responseCode: output.StatusCode, error: `the function failed (${output.FunctionError})`, body };
        }
        return { ok: true, latencyMs: elapsed(), responseCode: output.StatusCode, body };
      } catch (error) {
        const name = error instanceof Error ? error.name : 'Error';
        const reason = name === 'AbortError' || name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : `${name}: ${(error as Error).message}`;
        const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        return { ok: false, latencyMs: elapsed(), ...(status ? { responseCode: status } : {}), error: reason };
      }
    },
  };
}
