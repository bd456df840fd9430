import { describe, expect, it } from 'vitest';
import { PULUMI_CLI_ROUTE_KEYS, routeShape } from '../../infra/test/fixtures/pulumi-cli-routes.js';
import { noContentResponse } from './respond.js';
import { Router, type Route } from './router.js';
import { API_ROUTES, routeBindings } from './routes/index.js';

const route = (method: string, path: string): Route => ({
  method,
  path,
  group: 'stacks',
  handle: async () => noContentResponse(),
});

describe('Router', () => {
  it('prefers the most literal route, as API Gateway does', () => {
    const router = new Router([route('GET', '/api/stacks/{org}/{project}/{stack}'), route('GET', '/api/stacks/{org}/{project}/export')]);

    expect(router.match('GET', '/api/stacks/a/b/export')?.route.path).toBe('/api/stacks/{org}/{project}/export');
    expect(router.match('GET', '/api/stacks/a/b/dev')).toMatchObject({ params: { org: 'a', project: 'b', stack: 'dev' } });
  });

  it('matches method, segment count and literals exactly', () => {
    const router = new Router([route('GET', '/api/user')]);

    expect(router.match('POST', '/api/user')).toBeUndefined();
    expect(router.match('GET', '/api/user/')).toBeUndefined();
    expect(router.match('GET', '/api/users')).toBeUndefined();
  });

  it('refuses empty and undecodable parameters', () => {
    const router = new Router([route('GET', '/api/stacks/{org}')]);

    expect(router.match('GET', '/api/stacks/')).toBeUndefined();
    expect(router.match('GET', '/api/stacks/%E0%A4%A')).toBeUndefined();
  });

  it('refuses a table with the same route twice', () => {
    expect(() => new Router([route('GET', '/a/{x}'), route('GET', '/a/{y}')])).toThrow(/defined twice/);
  });
});

describe('the API route table', () => {
  const served = new Set(API_ROUTES.map((r) => routeShape(`${r.method} ${r.path}`)));

  it.each(PULUMI_CLI_ROUTE_KEYS)('serves %s', (key) => {
    expect(served.has(routeShape(key))).toBe(true);
  });

  it('binds every route to a function, and everything else to the identity function', () => {
    const bindings = routeBindings();

    expect(bindings).toHaveLength(API_ROUTES.length + 1);
    expect(bindings).toContainEqual({ routeKey: '$default', handler: 'Identity' });
    expect(bindings).toContainEqual({ routeKey: 'PATCH /api/stacks/{orgName}/{projectName}/{stackName}/update/{updateId}/checkpoint', handler: 'Updates' });
    expect(bindings).toContainEqual({ routeKey: 'POST /api/stacks/{orgName}/{projectName}/{stackName}/batch-decrypt', handler: 'Secrets' });
    expect(bindings).toContainEqual({ routeKey: 'GET /api/stacks/{orgName}/{projectName}/{stackName}/export', handler: 'Stacks' });
  });

  it('routes the CLI calls it does not serve to nothing (404 through $default)', () => {
    const router = new Router(API_ROUTES);

    expect(router.match('GET', '/api/agents/signup')).toBeUndefined();
    expect(router.match('GET', '/api/registry/packages/pulumi/pulumi/aws/versions/latest')).toBeUndefined();
    expect(router.match('GET', '/api/registry/packages')?.route.group).toBe('identity');
  });
});
