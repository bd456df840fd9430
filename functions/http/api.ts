import { createRoutedApi, type ApiHandler, type ApiOptions } from './api-core.js';
import { Router, type HandlerGroup } from './router.js';
import { API_ROUTES } from './routes/index.js';

export type { ApiHandler, ApiOptions } from './api-core.js';

const router = new Router(API_ROUTES);

/** The handler group API Gateway would route this request to (`undefined`: the `$default` route). */
export function routeGroup(method: string, path: string): HandlerGroup | undefined {
  return router.match(method, path)?.route.group;
}

/** The whole API (every group's routes), as `stackyard serve` and the tests run it. */
export function createApi(options: ApiOptions): ApiHandler {
  return createRoutedApi({ ...options, routes: API_ROUTES });
}
