import type * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NagSuppressions } from 'cdk-nag';

/**
 * Every Stackyard function is traced by X-Ray (Powertools Tracer in functions/observability.ts): `Tracing.ACTIVE`
 * samples each invocation and makes CDK grant the role `xray:PutTraceSegments` and `xray:PutTelemetryRecords`.
 */
export const FUNCTION_TRACING = lambda.Tracing.ACTIVE;

/** The X-Ray grant is on `*` because those two actions have no resource-level permissions. */
export function suppressTracingWildcard(role: iam.IRole): void {
  NagSuppressions.addResourceSuppressions(
    role,
    [
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'X-Ray tracing (Tracing.ACTIVE): xray:PutTraceSegments and xray:PutTelemetryRecords support no ' +
          'resource-level permissions, so CDK grants them on "*"; the role may do nothing else there.',
        appliesTo: ['Resource::*'],
      },
    ],
    true,
  );
}
