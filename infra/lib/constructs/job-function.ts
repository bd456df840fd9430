import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { BUNDLING, type HandlerSpec } from './api-functions.js';
import { FUNCTION_TRACING, suppressTracingWildcard } from './tracing.js';

/** Props for {@link jobFunction}. */
export interface JobFunctionProps {
  readonly spec: HandlerSpec;
  /** The function's own role; it gets the log group's write grant and the X-Ray grant. */
  readonly role: iam.Role;
  readonly description: string;
  /** Used when the spec names none. */
  readonly defaultTimeout: Duration;
  readonly environment?: Record<string, string>;
  readonly logRetention?: logs.RetentionDays;
}

/**
 * A Stackyard function that does a job rather than serve API routes (the run launcher, the schedule fire function):
 * nodejs22.x on arm64, bundled as the API functions are, traced, logging to `/stackyard/<stack>/functions/<name>`
 * (30 days by default), which its role alone may write. Its construct ids are `id` and `<id>Logs` in `scope`.
 */
export function jobFunction(scope: Construct, id: string, props: JobFunctionProps): NodejsFunction {
  const { spec, role } = props;
  const logGroup = new logs.LogGroup(scope, `${id}Logs`, {
    logGroupName: `/stackyard/${Stack.of(scope).stackName}/functions/${spec.name}`,
    retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  logGroup.grantWrite(role);
  const fn = new NodejsFunction(scope, id, {
    entry: spec.entry,
    handler: spec.handler ?? 'handler',
    description: props.description,
    runtime: lambda.Runtime.NODEJS_22_X,
    architecture: lambda.Architecture.ARM_64,
    memorySize: spec.memorySize ?? 512,
    timeout: spec.timeout ?? props.defaultTimeout,
    role,
    logGroup,
    tracing: FUNCTION_TRACING,
    environment: { POWERTOOLS_SERVICE_NAME: 'stackyard', ...props.environment },
    bundling: { ...BUNDLING, mainFields: [...BUNDLING.mainFields] },
  });
  suppressTracingWildcard(role);
  NagSuppressions.addResourceSuppressions(fn, [
    {
      id: 'AwsSolutions-L1',
      reason: 'nodejs22.x on purpose, like the API functions: the bundle targets node22 and nodejs24.x is adopted deliberately after the test suite runs on Node 24.',
    },
  ]);
  return fn;
}
