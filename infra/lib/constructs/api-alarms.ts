import { Duration } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';

/** Props for {@link ApiAlarms}. */
export interface ApiAlarmsProps {
  readonly api: apigw.IHttpApi;
  readonly functions: readonly lambda.IFunction[];
  /** Where alarms notify (for example an SNS topic action); none by default. */
  readonly actions?: readonly cloudwatch.IAlarmAction[];
  /** 5xx responses per 5 minutes that raise the alarm. */
  readonly serverErrorThreshold?: number;
  /** p99 latency in milliseconds that, held for 15 minutes, raises the alarm. */
  readonly latencyP99ThresholdMs?: number;
}

const PERIOD = Duration.minutes(5);

/**
 * The three alarms an operator needs: the API answers 5xx, Lambda refuses invocations (throttles), the API is slow.
 * Standard-resolution alarms at $0.10 per metric-month; missing data (an idle API) is never an alarm.
 */
export class ApiAlarms extends Construct {
  /** 5xx responses from the API (handler errors, timeouts, integration failures). */
  readonly serverErrors: cloudwatch.Alarm;
  /** Lambda throttles summed over every handler: the account or function concurrency limit is reached. */
  readonly throttles: cloudwatch.Alarm;
  /** p99 end-to-end API latency. */
  readonly latencyP99: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: ApiAlarmsProps) {
    super(scope, id);
    if (props.functions.length === 0) throw new Error('ApiAlarms needs at least one function');

    this.serverErrors = props.api
      .metricServerError({ period: PERIOD, statistic: cloudwatch.Stats.SUM })
      .createAlarm(this, 'ServerErrors', {
        alarmDescription: 'Stackyard API answered 5xx: read the function logs for the request ids in the access log',
        threshold: props.serverErrorThreshold ?? 5,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });

    const throttleMetrics = Object.fromEntries(
      props.functions.map((fn, i) => [`t${i}`, fn.metricThrottles({ period: PERIOD, statistic: cloudwatch.Stats.SUM })]),
    );
    this.throttles = new cloudwatch.MathExpression({
      // SUM over the array treats a function with no datapoint as 0 instead of blanking the whole sum.
      expression: `SUM([${Object.keys(throttleMetrics).join(', ')}])`,
      usingMetrics: throttleMetrics,
      period: PERIOD,
      label: 'Throttled invocations',
    }).createAlarm(this, 'Throttles', {
      alarmDescription: 'Lambda throttled Stackyard handlers: raise the concurrency quota or find the runaway client',
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });

    this.latencyP99 = props.api
      .metricLatency({ period: PERIOD, statistic: cloudwatch.Stats.p(99) })
      .createAlarm(this, 'LatencyP99', {
        alarmDescription: 'Stackyard API p99 latency is high for 15 minutes: check DynamoDB/S3/KMS latency and cold starts',
        threshold: props.latencyP99ThresholdMs ?? 5000,
        evaluationPeriods: 3,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });

    this.addActions(...(props.actions ?? []));
  }

  /** Notifies `actions` when any alarm fires and when it recovers. */
  addActions(...actions: cloudwatch.IAlarmAction[]): void {
    for (const alarm of [this.serverErrors, this.throttles, this.latencyP99]) {
      alarm.addAlarmAction(...actions);
      alarm.addOkAction(...actions);
    }
  }
}
