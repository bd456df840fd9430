import type { Services } from '../../shared/core/service/types.js';
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
}

const router = new Router(API_ROUTES);

/** The handler group API Gateway would route this request to (`undefined`: the `$default` route). */
export function routeGroup(method: string, path: string): HandlerGroup | undefined {
  return router.match(method, path)?.route.group;
}

/**
 * The HTTP API over `Services`: route, run the route, render any error in the one error shape, then compress and
 * stamp the request id. Framework-free, so Lambda and `serve` run exactly this.
 */
export function createApi(options: ApiOptions): ApiHandler {
  const { services, logger } = options;
  return async (request) => {
    let response: HttpResponse;
    const match = router.match(request.method, request.path);
    try {
      if (!match) throw Router.notFound(request.method, request.path);
      response = await match.route.handle(createRouteContext(request, match.params, services));
    } catch (error) {
      response = errorResponse(error, request, logger);
    }
    return finishResponse(response, request, logger);
  };
}
