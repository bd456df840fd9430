import type { HookRuntimeOptions } from '../shared/core/kernel/options.js';

/**
 * The functions' variable listing the Lambda functions hooks may invoke, comma-separated: the CDK context value
 * `hookFunctionArns`, which also scopes the functions' `lambda:InvokeFunction` permission (docs/hooks.md).
 */
export const HOOK_FUNCTION_ARNS_VARIABLE = 'STACKYARD_HOOK_FUNCTION_ARNS';

/**
 * Hook settings from the environment. Unset, any well-formed ARN may be registered (serve, local mode); set, only
 * the listed ones, so an empty value (a deployment that listed none, and so has no invoke permission) refuses every
 * Lambda hook when it is added instead of failing each delivery later.
 */
export function hookOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): HookRuntimeOptions {
  const listed = env[HOOK_FUNCTION_ARNS_VARIABLE];
  if (listed === undefined) return {};
  return {
    allowedLambdaArns: listed
      .split(',')
      .map((arn) => arn.trim())
      .filter((arn) => arn.length > 0),
  };
}

/** The dispatcher's variable naming its deployment (the CloudFormation stack), the dimension of its metric. */
export const DEPLOYMENT_VARIABLE = 'STACKYARD_DEPLOYMENT';

/**
 * The custom metric the dispatcher publishes (as an embedded-metric-format log line) when deliveries become dead
 * letters, and the infra alarms on: `Stackyard/DeadLetters`, dimension `Deployment`.
 */
export const DEAD_LETTER_METRIC = { namespace: 'Stackyard', name: 'DeadLetters', dimension: 'Deployment' } as const;
