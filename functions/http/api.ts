import type { Services } from '../../shared/core/service/types.js';
import { credentialScheme, type AccessLog } from './access-log.js';
import { consoleResponse, isConsoleRequest, type ConsoleAssets } from './console-assets.js';
import { createRouteContext } from './context.js';
import { errorResponse, finishResponse, type ApiLogger } from './respond.js';
import { Router, type HandlerGroup } from './router.js';
import { API_ROUTES } from './routes/index.js';
import type { HttpRequest, HttpResponse } from './types.js';

/** Handles one request end to end; never throws. */
export type ApiHandler = (request: HttpRequest) => Promise<HttpResponse>;

export interface ApiOptions {
  services: Services;
  logger: ApiLogger;
  /** Hears of every answered request once (method, route, status, duration, request id, principal). */
  accessLog?: AccessLog;
  /** The built web console, served for GET and HEAD outside /api/ (`undefined`: those answer 404). */
  consoleAssets?: ConsoleAssets;
  /** The one handler group this process serves (a Lambda function); a route of another group answers 404. Absent: all. */
  group?: HandlerGroup;
}

const router = new Router(API_ROUTES);

/** The handler group API Gateway would route this request to (`undefined`: the `$default` route). */
export function routeGroup(method: string, path: string): HandlerGroup | undefined {
  return router.match(method, path)?.route.group;
}

/**
 * The HTTP API over `Services`: route, run the route, render any error in the one error shape, then compress and
 * stamp the request id. Framework-free, so Lambda and `serve` run exactly this. Paths outside /api/ that no route
 * serves are the web console's (`$default` in API Gateway).
 */
export function createApi(options: ApiOptions): ApiHandler {
  const { services, logger, accessLog, consoleAssets, group } = options;
  return async (request) => {
    const started = performance.now();
    let response: HttpResponse;
    const match = router.match(request.method, request.path);
    const elsewhere = match !== undefined && group !== undefined && match.route.group !== group;
    const served = elsewhere ? undefined : match;
    const context = served && createRouteContext(request, served.params, services);
    try {
      if (elsewhere) throw Router.elsewhere(match.route, group);
      if (context) response = await served.route.handle(context);
      else if (isConsoleRequest(request)) response = consoleResponse(consoleAssets, request);
      else throw Router.notFound(request.method, request.path);
    } catch (error) {
      response = errorResponse(error, request, logger);
    }
    const finished = await finishResponse(response, request, logger);
    accessLog?.({
      method: request.method,
      route: match ? `${match.route.method} ${match.route.path}` : '$default',
      status: finished.status,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      requestId: request.requestId,
      principal: context?.caller() ?? null,
      credential: credentialScheme(request),
    });
    return finished;
  };
}
