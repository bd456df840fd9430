import type { Services } from '../../shared/core/service/types.js';
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
  /** The built web console, served for GET and HEAD outside /api/ (`undefined`: those answer 404). */
  consoleAssets?: ConsoleAssets;
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
  const { services, logger, consoleAssets } = options;
  return async (request) => {
    let response: HttpResponse;
    const match = router.match(request.method, request.path);
    try {
      if (match) response = await match.route.handle(createRouteContext(request, match.params, services));
      else if (isConsoleRequest(request)) response = consoleResponse(consoleAssets, request);
      else throw Router.notFound(request.method, request.path);
    } catch (error) {
      response = errorResponse(error, request, logger);
    }
    return finishResponse(response, request, logger);
  };
}
