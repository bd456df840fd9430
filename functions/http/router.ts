import { NotFoundError } from '../../shared/core/errors.js';
import type { HttpResponse } from './types.js';
import type { RouteContext } from './context.js';

/**
 * Which Lambda function serves a route. Each function bundles only its own group's routes (routes/group-*.ts), on
 * storage built with only the AWS clients those routes use (docs/deploy.md, "What each function bundles"); a request
 * API Gateway sends to the wrong function is answered 404 saying so (`Router.misrouted`). `stackyard serve` runs every
 * group.
 */
export type HandlerGroup = 'identity' | 'stacks' | 'updates' | 'secrets';

/** The group whose function also takes API Gateway's `$default` route: the web console and every unknown path. */
export const DEFAULT_GROUP: HandlerGroup = 'identity';

export interface Route {
  method: string;
  /** API Gateway route syntax: literal segments and `{param}` segments. */
  path: string;
  group: HandlerGroup;
  handle(context: RouteContext): Promise<HttpResponse>;
}

export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

interface CompiledRoute {
  route: Route;
  segments: { literal?: string; param?: string }[];
  literalCount: number;
}

/** The routes of `list` that belong to `group`: each function's table (routes/group-*.ts) is made with this. */
export function routesOf(group: HandlerGroup, list: readonly Route[]): readonly Route[] {
  return list.filter((route) => route.group === group);
}

/** Matches a method and path against a route table, preferring the most literal match as API Gateway does. */
export class Router {
  private readonly compiled: CompiledRoute[];

  constructor(readonly routes: readonly Route[]) {
    const seen = new Set<string>();
    this.compiled = routes.map((route) => {
      const key = `${route.method} ${route.path.replace(/\{[^}]+\}/g, '{}')}`;
      if (seen.has(key)) throw new Error(`route ${route.method} ${route.path} is defined twice`);
      seen.add(key);
      const segments = route.path
        .split('/')
        .slice(1)
        .map((segment) => {
          const param = /^\{([A-Za-z0-9_]+)\}$/.exec(segment);
          return param ? { param: param[1] } : { literal: segment };
        });
      return { route, segments, literalCount: segments.filter((s) => s.literal !== undefined).length };
    });
  }

  match(method: string, path: string): RouteMatch | undefined {
    const parts = path.split('/').slice(1);
    let best: { compiled: CompiledRoute; params: Record<string, string> } | undefined;
    for (const compiled of this.compiled) {
      if (compiled.route.method !== method || compiled.segments.length !== parts.length) continue;
      const params = matchSegments(compiled, parts);
      if (params && (!best || compiled.literalCount > best.compiled.literalCount)) best = { compiled, params };
    }
    return best && { route: best.compiled.route, params: best.params };
  }

  /**
   * 404 for a request that reached a Lambda function none of whose routes it matches: API Gateway sends a function
   * only its own routes, so this deployment's routes do not match its code (a partial or manual deployment), which
   * only redeploying the whole stack repairs.
   */
  static misrouted(method: string, path: string, group: HandlerGroup): NotFoundError {
    return new NotFoundError(
      `${method} ${path.slice(0, 200)} is not a route of the ${group} function, yet API Gateway sent it there: the API ` +
        'routes of this deployment do not match its functions; redeploy it (`cdk deploy`, docs/deploy.md).',
    );
  }

  /** 404 with the Pulumi error shape for anything the table does not serve (agent signup, registry versions, …). */
  static notFound(method: string, path: string): NotFoundError {
    return new NotFoundError(
      `${method} ${path.slice(0, 200)} is not served by Stackyard: it implements the Pulumi service API the Pulumi CLI ` +
        'uses for state, updates and secrets (see docs/api.md).',
    );
  }
}

function matchSegments(compiled: CompiledRoute, parts: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i += 1) {
    const segment = compiled.segments[i]!;
    const part = parts[i]!;
    if (segment.literal !== undefined) {
      if (segment.literal !== part) return undefined;
      continue;
    }
    if (part === '') return undefined;
    let value: string;
    try {
      value = decodeURIComponent(part);
    } catch {
      return undefined;
    }
    params[segment.param!] = value;
  }
  return params;
}
