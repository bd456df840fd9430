import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { TableStore } from '../shared/adapters/aws/table-stores.js';
import { absent } from '../shared/core/absent.js';
import { auditingDenials } from '../shared/core/audit/denials.js';
import type { ServiceDeps } from '../shared/core/kernel/deps.js';
import type { StackKeys } from '../shared/core/secrets/secrets-envelope.js';
import type { Services } from '../shared/core/compose/types.js';
import type { Storage } from '../shared/ports/index.js';
import type { RunQueue } from '../shared/ports/run-queue.js';
import type { ScheduleTriggers } from '../shared/ports/schedule-triggers.js';
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
    const storage = lambdaStorage(fn.tables, fn.storage, process.env, (client) => tracer.captureAWSv3Client(client));
    const serviceUrl = process.env.STACKYARD_PUBLIC_URL || `https://${event.requestContext.domainName}`;
    const now = Date.now;
    // As `serviceDeps` builds them, but with the data keys only where the routes use them (fn.keys).
    const deps: ServiceDeps = {
      storage,
      now,
      keys: fn.keys?.(storage, now) ?? absent<StackKeys>(`stack data keys (the ${fn.group} function's routes never use them)`),
      options: {
        serviceUrl,
        hooks: hookOptionsFromEnv(process.env),
        runQueue: fn.runQueue?.(process.env),
        scheduleTriggers: fn.scheduleTriggers?.(process.env),
      },
    };
    const built = fn.services(deps, (service) => auditingDenials(deps, service));
    const missing = (name: string) => absent<object>(`${name} service (the ${fn.group} function's routes never use it)`);
    services = new Proxy(built, {
      get: (target, name: string) => {
        const service = target[name as keyof Services] as object | undefined;
        // A service built with only the methods the routes call answers the others as `absent` does.
        return service ? withAbsentMembers(service, missing(name)) : missing(name);
      },
    }) as Services;
  }
  return services;
}

/** What one API function is made of; each module under handlers/ names its own. */
export interface LambdaFunction {
  group: HandlerGroup;
  /** The group's routes (http/routes/group-<group>.ts): the only ones bundled into it. */
  routes: readonly Route[];
  /** The table stores those routes (and authentication and the audit log) use; the others are left out of the bundle. */
  tables: readonly TableStore[];
  /** The storage parts beyond the table that those routes use (storage-parts/). */
  storage: readonly StorageParts[];
  /**
   * The per-stack data keys (`ServiceDeps.keys`), for a function whose routes encrypt or decrypt secrets; the others
   * leave them out of their bundle.
   */
  keys?: (storage: Storage, now: () => number) => StackKeys;
  /** The run queue queued deployment runs are announced on (SQS), for a function whose routes queue runs. */
  runQueue?: (env: NodeJS.ProcessEnv) => RunQueue | undefined;
  /** The triggers of stack schedules (EventBridge Scheduler), for a function whose routes create or change schedules. */
  scheduleTriggers?: (env: NodeJS.ProcessEnv) => ScheduleTriggers | undefined;
  /**
   * Builds the services those routes (and authentication: identity, console) use, each passed through `audited` as
   * `createServices` does (authorization refusals go to the audit log); the others are left out of the bundle, and
   * answer with an error naming them if ever called.
   */
  services: (deps: ServiceDeps, audited: <S extends object>(service: S) => S) => PartialServices;
}

/**
 * Services, each possibly with only some of its methods: the stacks function reads an update's status without
 * bundling the update lifecycle (its hook gates bring the Lambda client).
 */
export type PartialServices = { [Name in keyof Services]?: Partial<Services[Name]> };

const completed = new WeakMap<object, object>();

/** `service` whose members it lacks come from `fallback`, one object per service. */
function withAbsentMembers(service: object, fallback: object): object {
  let whole = completed.get(service);
  if (!whole) {
    whole = new Proxy(service, { get: (target, member) => (member in target ? Reflect.get(target, member) : Reflect.get(fallback, member)) });
    completed.set(service, whole);
  }
  return whole;
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
