import { routesOf, type Route } from '../router.js';
import { accessRoutes } from './access.js';
import { consoleRoutes } from './console.js';
import { policyGroupRoutes } from './policy-groups.js';
import { policyPackRoutes } from './policy-packs.js';
import { policyResultRoutes } from './policy-results.js';
import { restoreRoutes } from './restore.js';
import { stackRoutes } from './stacks.js';
import { stateDiffRoutes } from './state-diff.js';

/**
 * The stacks function's routes: stacks, history, export and import, restore, permissions, the console's stack pages,
 * policy packs, groups and results.
 */
export const STACKS_GROUP_ROUTES: readonly Route[] = routesOf('stacks', [
  ...stackRoutes,
  ...restoreRoutes,
  ...stateDiffRoutes,
  ...accessRoutes,
  ...consoleRoutes,
  ...policyPackRoutes,
  ...policyGroupRoutes,
  ...policyResultRoutes,
]);
