import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';

/**
 * One API route: a route key in API Gateway syntax (`METHOD /path/{param}`, or `$default` for every request no other
 * route matches) and the handler that serves it.
 */
export interface RouteBinding {
  readonly routeKey: string;
  readonly handler: string;
}

/** A custom domain; the certificate must be in the stack's region (a regional endpoint). */
export interface CustomDomain {
  readonly domainName: string;
  readonly certificateArn: string;
}

/** Props for {@link StackyardHttpApi}. */
export interface StackyardHttpApiProps {
  readonly routes: readonly RouteBinding[];
  readonly functions: ReadonlyMap<string, lambda.IFunction>;
  /** Steady-state requests per second for the whole stage. */
  readonly throttleRateLimit?: number;
  readonly throttleBurstLimit?: number;
  readonly customDomain?: CustomDomain;
  readonly logRetention?: logs.RetentionDays;
}

const METHODS = new Set<string>(Object.values(apigw.HttpMethod));

/** The catch-all route key: API Gateway sends it every request that matches no other route. */
const DEFAULT_ROUTE_KEY = '$default';

/**
 * The Pulumi-service-compatible HTTP API. Authentication is the handlers' job (Pulumi's `token`/`update-token`
 * schemes are not something an API Gateway authorizer can cache per route), so routes carry no authorizer.
 */
export class StackyardHttpApi extends Construct {
  readonly api: apigw.HttpApi;
  readonly stage: apigw.HttpStage;
  readonly accessLogs: logs.LogGroup;
  readonly domainName?: apigw.DomainName;
  /** The URL users give to `pulumi login`: the custom domain if there is one, else the stage URL. */
  readonly loginUrl: string;

  constructor(scope: Construct, id: string, props: StackyardHttpApiProps) {
    super(scope, id);
    this.api = new apigw.HttpApi(this, 'Api', {
      apiName: Stack.of(this).stackName,
      description: 'Stackyard: Pulumi service API',
      createDefaultStage: false,
    });
    this.accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      logGroupName: `/stackyard/${Stack.of(this).stackName}/api-access`,
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    if (props.customDomain) {
      this.domainName = new apigw.DomainName(this, 'DomainName', {
        domainName: props.customDomain.domainName,
        certificate: acm.Certificate.fromCertificateArn(this, 'Certificate', props.customDomain.certificateArn),
      });
    }
    this.stage = new apigw.HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: props.throttleRateLimit ?? 50, burstLimit: props.throttleBurstLimit ?? 100 },
      domainMapping: this.domainName ? { domainName: this.domainName } : undefined,
      accessLogSettings: {
        destination: new apigw.LogGroupLogDestination(this.accessLogs),
        // Never the Authorization header or bodies: they carry tokens and secrets.
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            ip: '$context.identity.sourceIp',
            requestTime: '$context.requestTime',
            routeKey: '$context.routeKey',
            path: '$context.path',
            status: '$context.status',
            responseLength: '$context.responseLength',
            latencyMs: '$context.responseLatency',
            integrationLatencyMs: '$context.integrationLatency',
            integrationError: '$context.integrationErrorMessage',
            userAgent: '$context.identity.userAgent',
          }),
        ),
      },
    });

    const integrations = new Map<string, HttpLambdaIntegration>();
    const routeIds = new Set<string>();
    for (const route of props.routes) {
      const fn = props.functions.get(route.handler);
      if (!fn) throw new Error(`route ${route.routeKey}: no function named ${route.handler}`);
      let integration = integrations.get(route.handler);
      if (!integration) {
        // One invoke permission per function instead of one per route keeps the resource policy far below its limit.
        integration = new HttpLambdaIntegration(`${route.handler}Integration`, fn, {
          scopePermissionToRoute: false,
        });
        integrations.set(route.handler, integration);
      }
      const routeKey = parseRouteKey(route.routeKey);
      // Ids come from the route key, not the position, so reordering the table does not replace routes.
      const routeId = `Route-${route.routeKey.replace(/[^A-Za-z0-9]+/g, '-')}`;
      if (routeIds.has(routeId)) throw new Error(`route ${route.routeKey} is listed twice`);
      routeIds.add(routeId);
      new apigw.HttpRoute(this, routeId, {
        httpApi: this.api,
        routeKey,
        integration,
      });
    }

    NagSuppressions.addResourceSuppressions(
      this,
      [
        {
          id: 'AwsSolutions-APIG4',
          reason:
            'Every handler authenticates the request itself: the Pulumi CLI sends `token <api token>` or ' +
            '`update-token <lease token>`, both checked against SHA-256 hashes in DynamoDB (lease tokens also against ' +
            'the stack and update in the path), which an API Gateway authorizer cannot express per route.',
        },
      ],
      true,
    );

    this.loginUrl = this.domainName ? `https://${props.customDomain!.domainName}` : this.api.apiEndpoint;
  }
}

/** Turns `GET /api/stacks/{o}` or `$default` into a route key, rejecting what API Gateway would reject at deploy time. */
export function parseRouteKey(routeKey: string): apigw.HttpRouteKey {
  if (routeKey === DEFAULT_ROUTE_KEY) return apigw.HttpRouteKey.DEFAULT;
  const match = /^([A-Z]+) (\/\S*)$/.exec(routeKey);
  if (!match || !METHODS.has(match[1]!)) throw new Error(`invalid route key: ${routeKey}`);
  return apigw.HttpRouteKey.with(match[2]!, match[1] as apigw.HttpMethod);
}
