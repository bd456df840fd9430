import { randomBytes } from 'node:crypto';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LogLevel } from '@aws-lambda-powertools/logger/types';
import { createLocalStorage } from '../../shared/adapters/local/index.js';
import { InvalidInputError, NotFoundError } from '../../shared/core/errors.js';
import { sdkAwsProviderApi } from '../../shared/adapters/aws/aws-provider-api.js';
import { createServices } from '../../shared/core/compose/create-services.js';
import { serviceDeps } from '../../shared/core/compose/service-deps.js';
import { auditGraceFromEnv } from '../audit-settings.js';
import { API_TOKEN_PREFIX } from '../../shared/core/identity/identity-service.js';
import type { Services } from '../../shared/core/compose/types.js';
import type { Storage } from '../../shared/ports/index.js';
import { createApiGatewayHandler, type ApiGatewayHandler } from '../handlers/api-gateway.js';
import type { AccessLog } from '../http/access-log.js';
import { createApi, routeGroup } from '../http/api.js';
import { findConsoleAssets } from '../http/console-assets.js';
import type { HandlerGroup } from '../http/router.js';
import { createApiLogger } from '../logger.js';
import { serveHookSettings, startHookDispatchLoop } from './hook-dispatch.js';
import { schedulerTickMs, startScheduleLoop } from './schedule-loop.js';
import { trackConnections } from './connections.js';
import { createNodeListener } from './node-adapter.js';

export type StorageMode = 'local' | 'aws';

export interface ServeOptions {
  storage: StorageMode;
  /** Local storage's data folder (ignored in `aws` mode). */
  dataDir: string;
  /** 0 picks a free port. */
  port: number;
  host: string;
  /**
   * STACKYARD_ADMIN_TOKEN / STACKYARD_ADMIN_USER, STACKYARD_PUBLIC_URL, STACKYARD_TABLE / _BUCKET / _KMS_KEY_ID, and
   * the hook settings (STACKYARD_HOOKS_*, see `serveHookSettings`). The AWS SDK itself reads endpoints, region and
   * credentials from the process environment (AWS_ENDPOINT_URL_LAMBDA for Lambda hooks).
   */
  env: NodeJS.ProcessEnv;
  /** Where the start-up lines go (the URL, and a generated administrator token, which only this process knows). */
  print: (line: string) => void;
  /** One JSON access-log line per request through `print` (`serve --access-log`, or STACKYARD_ACCESS_LOG=on). */
  accessLog?: boolean;
}

export interface RunningServer {
  /** The URL to log in with (also the service URL written into stack state). */
  url: string;
  port: number;
  server: Server;
  /**
   * The log-in lines (URL, administrator, `login` command), printed last at start; `printLogin` repeats them (on
   * SIGUSR1), so a generated administrator token is never lost under other output while this process runs.
   */
  loginLines: readonly string[];
  printLogin(): void;
  /**
   * Stops accepting, answers the requests in flight (telling keep-alive clients to close), closes idle
   * connections, then storage. Connections still open at `deadlineMs` (default 8 s) are cut.
   */
  close(deadlineMs?: number): Promise<void>;
}

/** Leaves 2 s of the 10 s a supervisor typically grants after SIGTERM for the dispatcher and storage to stop. */
export const SHUTDOWN_DEADLINE_MS = 8_000;

const AWS_VARIABLES = ['STACKYARD_TABLE', 'STACKYARD_BUCKET', 'STACKYARD_KMS_KEY_ID'] as const;

/** serve's storage: the data folder, or the AWS deployment's table, bucket and key (runner workers open the same). */
export async function openStorage(options: Pick<ServeOptions, 'storage' | 'dataDir' | 'env'>): Promise<Storage> {
  if (options.storage === 'local') return createLocalStorage({ dataDir: options.dataDir });
  const missing = AWS_VARIABLES.filter((name) => !options.env[name]);
  if (missing.length > 0) {
    throw new InvalidInputError(
      `STACKYARD_STORAGE=aws needs ${missing.join(', ')}: set them to the TableName, BucketName and KeyArn outputs of ` +
        'the deployed stack (docs/deploy.md), or use local storage (STACKYARD_STORAGE=local, the default).',
    );
  }
  // Imported here, so serve on local storage loads none of the AWS SDK.
  const { awsStorageOptionsFromEnv, createAwsStorage } = await import('../../shared/adapters/aws/index.js');
  return createAwsStorage(awsStorageOptionsFromEnv(options.env));
}

function loginUrl(options: ServeOptions, port: number): string {
  const configured = options.env.STACKYARD_PUBLIC_URL?.trim().replace(/\/+$/, '');
  if (configured) return configured;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return `http://${host}:${port}`;
}

/**
 * STACKYARD_ADMIN_TOKEN makes that token an administrator's (re-applied at every start, stored hashed). Without it,
 * the first start on an empty store creates an administrator token and prints it; later starts never show it again.
 */
async function bootstrapAdministrator(services: Services, storage: Storage, options: ServeOptions): Promise<string[]> {
  const login = options.env.STACKYARD_ADMIN_USER?.trim() || 'admin';
  const configured = options.env.STACKYARD_ADMIN_TOKEN;
  if (configured) {
    await services.identity.ensureAdmin(login, configured);
    return [`Administrator '${login}' signs in with the token in STACKYARD_ADMIN_TOKEN.`];
  }
  const exists = await storage.identity.getUser(login).then(
    () => true,
    (error: unknown) => {
      if (error instanceof NotFoundError) return false;
      throw error;
    },
  );
  if (exists) {
    return [
      `Administrator '${login}' exists; sign in with the token you saved when it was created.`,
      `  (lost it? restart with STACKYARD_ADMIN_TOKEN=<a new secret>: that token becomes '${login}'s too)`,
    ];
  }
  const token = `${API_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  await services.identity.ensureAdmin(login, token);
  return [
    `Created administrator '${login}'. Its token is stored only as a hash; this process repeats it on SIGUSR1 ` +
      '(`stackyard serve --print-login`) until it stops:',
    `  ${token}`,
  ];
}

function serveLogLevel(env: NodeJS.ProcessEnv): LogLevel | undefined {
  // Request-level logs belong in CloudWatch; a terminal wants warnings and errors only unless asked for more.
  return env.POWERTOOLS_LOG_LEVEL || env.LOG_LEVEL ? undefined : 'WARN';
}

/**
 * `stackyard serve`: the API's own Lambda handlers behind node:http, through the same API Gateway v2 event shape,
 * routing and size caps as a deployment, on local storage or on AWS (or its stand-ins). Hook deliveries run in this
 * process: the dispatcher every STACKYARD_HOOKS_DISPATCH_MS, until the server closes.
 */
const IDLE_CONNECTION_MS = 65_000;

export async function createServer(options: ServeOptions): Promise<RunningServer> {
  const hookSettings = serveHookSettings(options.env);
  const tickMs = schedulerTickMs(options.env);
  const storage = await openStorage(options);
  // Clients keep connections open between calls (Go's transport, which the pulumi CLI uses, for up to 90 s). Node's
  // 5 s default closes an idle one just as a slow client sends its next request on it, which the client sees as a
  // hang-up with no answer; API Gateway keeps idle connections for minutes too.
  const server = createHttpServer({ keepAliveTimeout: IDLE_CONNECTION_MS, headersTimeout: IDLE_CONNECTION_MS + 1_000 });
  const tracker = trackConnections(server);
  // The listener is attached before `listen`, so a request that arrives while the services are still being built
  // waits for them instead of never being answered.
  const ready = deferred<(group: HandlerGroup) => ApiGatewayHandler>();
  server.on('request', createNodeListener(async (method, path) => (await ready.promise)(routeGroup(method, path) ?? 'identity'), tracker));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const port = (server.address() as AddressInfo).port;
    const url = loginUrl(options, port);
    const auditGraceMs = auditGraceFromEnv(options.env);
    const serviceOptions = { serviceUrl: url, hooks: hookSettings.hooks, awsProviderApi: sdkAwsProviderApi(options.env), ...(auditGraceMs ? { auditGraceMs } : {}) };
    const services = createServices(storage, serviceOptions);
    const administratorLines = await bootstrapAdministrator(services, storage, options);
    const dispatchLogger = createApiLogger('stacks', { logLevel: serveLogLevel(options.env) });
    // Failed deliveries are recorded, not thrown: what arrives here is a storage failure, which names no hook URL.
    const dispatch = startHookDispatchLoop(storage, hookSettings, (error) =>
      dispatchLogger.warn('Hook dispatch failed; the next run retries it', {
        error: error instanceof Error ? { name: error.name, message: error.message } : { name: typeof error },
      }),
    );

    // Runs queued by a schedule and the ticks that could not queue one are logged; the schedule itself moved on.
    const scheduler = startScheduleLoop(
      serviceDeps(storage, serviceOptions),
      tickMs,
      (tick) => {
        for (const queued of tick.queued) dispatchLogger.info('A schedule queued a deployment run', queued);
        for (const failed of tick.failed) {
          const error = failed.error instanceof Error ? failed.error.message : String(failed.error);
          dispatchLogger.warn('A schedule fired but its run could not be queued', { scheduleId: failed.scheduleId, dueAt: failed.dueAt, error });
        }
      },
      (error) => dispatchLogger.warn('The scheduler tick failed; the next tick retries', { error: error instanceof Error ? { name: error.name, message: error.message } : { name: typeof error } }),
    );

    const accessLog = serveAccessLog(options);
    const consoleAssets = findConsoleAssets(dirname(fileURLToPath(import.meta.url)));
    const handlers = new Map<HandlerGroup, ApiGatewayHandler>();
    // What API Gateway does: the route's function, or the identity function for `$default`.
    ready.resolve((group) => {
      let handler = handlers.get(group);
      if (!handler) {
        const logger = createApiLogger(group, { logLevel: serveLogLevel(options.env) });
        const api = createApi({ services, logger, accessLog, consoleAssets });
        handlers.set(group, (handler = createApiGatewayHandler(logger, () => api)));
      }
      return handler;
    });
    // Last, and together: whatever the process printed before, the token and the login command end the output.
    const loginLines = [
      `Stackyard serves the Pulumi service API at ${url} (${options.storage} storage).`,
      ...(consoleAssets ? [`Web console: ${url}/   (or: stackyard console)`] : []),
      ...administratorLines,
      `Log in with: pulumi login ${url}   (or: stackyard login ${url})`,
    ];
    const printLogin = () => loginLines.forEach((line) => options.print(line));
    printLogin();

    return {
      url,
      port,
      server,
      loginLines,
      printLogin,
      async close(deadlineMs = SHUTDOWN_DEADLINE_MS) {
        await tracker.drain(deadlineMs);
        await dispatch.stop();
        await scheduler.stop();
        await storage.close();
      },
    };
  } catch (error) {
    ready.reject(error);
    server.close();
    await storage.close();
    throw error;
  }
}

/**
 * The access log of `serve`: off by default, so a terminal keeps its log-in lines in sight; `--access-log` or
 * STACKYARD_ACCESS_LOG=on writes one JSON line per request through `print`, whatever the log level. The Lambda
 * functions write the same fields through their logger.
 */
function serveAccessLog(options: ServeOptions): AccessLog | undefined {
  const fromEnv = options.env.STACKYARD_ACCESS_LOG?.trim().toLowerCase();
  if (!options.accessLog && fromEnv !== 'on' && fromEnv !== 'true' && fromEnv !== '1') return undefined;
  return (entry) => options.print(JSON.stringify({ level: 'INFO', message: 'access', timestamp: new Date().toISOString(), ...entry }));
}

function deferred<T>(): { promise: Promise<T>; resolve(value: T): void; reject(error: unknown): void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A start-up failure is reported by createServer itself; requests waiting on it get the 500 of the listener.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}
