import type { Services } from '../../shared/core/compose/types.js';
import { credentialScheme, type AccessLog } from './access-log.js';
import { consoleResponse, isConsoleRequest, type ConsoleAssets } from './console-assets.js';
import { createRouteContext } from './context.js';
import { errorResponse, finishResponse, type ApiLogger } from './respond.js';
import { DEFAULT_GROUP, Router, type HandlerGroup, type Route } from './router.js';
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
}

export interface RoutedApiOptions extends ApiOptions {
  routes: readonly Route[];
  /**
   * The one handler group a Lambda function serves, `routes` being that group's. API Gateway sends a function only
   * its own routes (and `$default` to DEFAULT_GROUP's), so anything else that reaches it was mis-routed and answers
   * 404 saying so. Absent (serve): every route, and `$default` handling for the rest.
   */
  group?: HandlerGroup;
}

/**
 * The HTTP API over `Services`: route, run the route, render any error in the one error shape, then compress and
 * stamp the request id. Framework-free, so Lambda and `serve` run exactly this. Paths outside /api/ that no route
 * serves are the web console's (`$default` in API Gateway). This module imports no route: each Lambda function
 * passes its own group's (functions/http/routes/group-*.ts), so its bundle carries only those routes.
 */
export function createRoutedApi(options: RoutedApiOptions): ApiHandler {
  const { services, logger, accessLog, consoleAssets, group } = options;
  const router = new Router(options.routes);
  const servesDefault = group === undefined || group === DEFAULT_GROUP;
  return async (request) => {
    const started = performance.now();
    let response: HttpResponse;
    const match = router.match(request.method, request.path);
    const route = match && `${match.route.method} ${match.route.path}`;
    const context = match && createRouteContext({ ...request, route }, match.params, services);
    try {
      if (context) response = await match.route.handle(context);
      else if (!servesDefault) throw Router.misrouted(request.method, request.path, group!);
      else if (isConsoleRequest(request)) response = consoleResponse(consoleAssets, request);
      else throw Router.notFound(request.method, request.path);
    } catch (error) {
      response = errorResponse(error, request, logger);
    }
    const finished = await finishResponse(response, request, logger);
    accessLog?.({
      method: request.method,
      route: route ?? '$default',
      status: finished.status,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      requestId: request.requestId,
      principal: context?.caller() ?? null,
      credential: credentialScheme(request),
    });
    return finished;
  };
}
