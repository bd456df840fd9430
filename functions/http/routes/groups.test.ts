import { describe, expect, it } from 'vitest';
import type { HandlerGroup, Route } from '../router.js';
import { IDENTITY_GROUP_ROUTES } from './group-identity.js';
import { SECRETS_GROUP_ROUTES } from './group-secrets.js';
import { STACKS_GROUP_ROUTES } from './group-stacks.js';
import { UPDATES_GROUP_ROUTES } from './group-updates.js';
import { API_ROUTES } from './index.js';

const key = (route: Route) => `${route.method} ${route.path}`;

describe("each Lambda function's route table", () => {
  it('together the four tables are exactly the whole API, each route in the table of its own group', () => {
    const tables: Record<HandlerGroup, readonly Route[]> = {
      identity: IDENTITY_GROUP_ROUTES,
      stacks: STACKS_GROUP_ROUTES,
      updates: UPDATES_GROUP_ROUTES,
      secrets: SECRETS_GROUP_ROUTES,
    };

    const byTable = Object.entries(tables).flatMap(([group, routes]) => routes.map((route) => `${group}: ${key(route)}`));
    const byRoute = API_ROUTES.map((route) => `${route.group}: ${key(route)}`);

    expect(byTable.sort()).toEqual(byRoute.sort());
  });
});
