import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { HandlerGroup } from './http/router.js';

/**
 * Powertools Tracer and Metrics for the Lambda functions only: `serve` never imports this module, so it loads no
 * X-Ray SDK (whose automatic mode turns on an async hook for every promise) and prints no metric line on the
 * stdout that is its access log.
 *
 * Tracing follows the function's X-Ray setting (`Tracing.ACTIVE` in infra/) and is off outside Lambda, or with
 * POWERTOOLS_TRACE_ENABLED=false. Responses are never put into a trace: they carry decrypted secrets and tokens.
 */

/** The namespace of every Stackyard metric. */
export const METRICS_NAMESPACE = 'Stackyard';

/** API function metrics (dimensions `service` and `handlerGroup`): published only when there is one. */
export const API_METRICS = {
  /** Answers 503: storage or KMS unavailable (each one carries Retry-After). */
  unavailable: 'Unavailable',
  /** Answers 500: bugs; the function's log has the request id and stack. */
  internalErrors: 'InternalErrors',
} as const;

/**
 * Outgoing HTTP is not traced as such: the storage clients are (lambdaStorage's `instrument`), and a hook's webhook URL may carry
 * its credential in the path, which must not reach a trace.
 */
export function createTracer(): Tracer {
  return new Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'stackyard', captureHTTPsRequests: false });
}

/** Metrics of one API function: namespace Stackyard, dimensions `service` and `handlerGroup`. */
export function createApiMetrics(group: HandlerGroup): Metrics {
  return new Metrics({
    namespace: METRICS_NAMESPACE,
    serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'stackyard',
    defaultDimensions: { handlerGroup: group },
  });
}

type ApiMiddleware = MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>;

/**
 * Counts the answers an operator is paged for (503, 500) and Powertools' ColdStart, flushed at the end of each
 * invocation that has any. Powertools' own `logMetrics` would warn in every invocation that has none.
 */
export function apiMetricsMiddleware(metrics: Metrics): ApiMiddleware {
  return {
    before: (request) => metrics.captureColdStartMetric(request.context.functionName),
    after: (request) => {
      const status = request.response?.statusCode;
      if (status === 503) metrics.addMetric(API_METRICS.unavailable, MetricUnit.Count, 1);
      else if (status !== undefined && status >= 500) metrics.addMetric(API_METRICS.internalErrors, MetricUnit.Count, 1);
      if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
    },
  };
}

/** The X-Ray segment of each invocation, without the response (see above). */
export function tracingMiddleware(tracer: Tracer): MiddlewareObj {
  return captureLambdaHandler(tracer, { captureResponse: false });
}
