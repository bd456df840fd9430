import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { absent } from '../shared/core/absent.js';
import { auditingDenials } from '../shared/core/audit/denials.js';
import type { ServiceDeps } from '../shared/core/service/create-services.js';
import { serviceDeps } from '../shared/core/service/service-deps.js';
import type { Services } from '../shared/core/service/types.js';
import type { AccessLogEntry } from './http/access-log.js';
import { createRoutedApi, type ApiHandler } from './http/api-core.js';
import { findConsoleAssets } from './http/console-assets.js';
import type { HandlerGroup, Route } from './http/router.js';
import { createApiGatewayHandler, type ApiGatewayHandler } from './handlers/api-gateway.js';
import { hookOptionsFromEnv } from './hook-settings.js';
import { lambdaStorage, type StorageParts } from './lambda-storage.js';
import { createApiLogger } from './logger.js';
import { apiMetricsMiddleware, createApiMetrics, createTracer, tracingMiddleware } from './observability.js';

const tracer = createTracer();

let services: Services | undefined;

/**
 * Builds storage (STACKYARD_TABLE, STACKYARD_BUCKET, STACKYARD_KMS_KEY_ID) and the services once per cold start,
 * on the first request: the service URL written into state is the one users log in with, which is
 * STACKYARD_PUBLIC_URL when set (a custom domain in front), else the domain this request arrived on. Hooks may
 * only name the Lambda functions of STACKYARD_HOOK_FUNCTION_ARNS, the ones the functions may invoke.
 */
function lambdaServices(event: APIGatewayProxyEventV2, fn: LambdaFunction): Services {
  if (!services) {
    // Every storage call becomes an X-Ray subsegment (a no-op where tracing is off).
    const storage = lambdaStorage(fn.storage, process.env, (client) => tracer.captureAWSv3Client(client));
    const serviceUrl = process.env.STACKYARD_PUBLIC_URL || `https://${event.requestContext.domainName}`;
    const deps = serviceDeps(storage, { serviceUrl, hooks: hookOptionsFromEnv(process.env) });
    const built = fn.services(deps, (service) => auditingDenials(deps, service));
    const missing = (name: string) => absent<object>(`${name} service (the ${fn.group} function's routes never use it)`);
    services = new Proxy(built, {
      get: (target, name: string) => target[name as keyof Services] ?? missing(name),
    }) as Services;
  }
  return services;
}

/** What one API function is made of; each module under handlers/ names its own. */
export interface LambdaFunction {
  group: HandlerGroup;
  /** The group's routes (http/routes/group-<group>.ts): the only ones bundled into it. */
  routes: readonly Route[];
  /** The storage parts beyond the table that those routes use (storage-parts/). */
  storage: readonly StorageParts[];
  /**
   * Builds the services those routes (and authentication: identity, console) use, each passed through `audited` as
   * `createServices` does (authorization refusals go to the audit log); the others are left out of the bundle, and
   * answer with an error naming them if ever called.
   */
  services: (deps: ServiceDeps, audited: <S extends object>(service: S) => S) => Partial<Services>;
}

/**
 * The Lambda entry point of one handler group: it serves that group's routes, on storage made of the table and the
 * parts those routes use. Importing only these keeps the rest out of the bundle (docs/deploy.md, "What each function
 * bundles").
 */
export function lambdaHandler(fn: LambdaFunction): ApiGatewayHandler {
  const { group, routes } = fn;
  const logger = createApiLogger(group);
  let api: ApiHandler | undefined;
  const accessLog = (entry: AccessLogEntry) => logger.info('access', { ...entry });
  return createApiGatewayHandler(
    logger,
    (event) =>
      (api ??= createRoutedApi({
        services: lambdaServices(event, fn),
        routes,
        group,
        logger,
        accessLog,
        // The bundle's `console/` folder (infra copies dist/console next to each handler).
        consoleAssets: findConsoleAssets(dirname(fileURLToPath(import.meta.url))),
      })),
    [tracingMiddleware(tracer), apiMetricsMiddleware(createApiMetrics(group))],
  );
}
