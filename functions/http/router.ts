import { NotFoundError } from '../../shared/core/errors.js';
import type { HttpResponse } from './types.js';
import type { RouteContext } from './context.js';

/**
 * Which Lambda function serves a route. Each function runs only its own group's routes, on storage built with only
 * the AWS clients those routes use (docs/deploy.md, "What each function bundles"); a request API Gateway sends to the
 * wrong function is answered 404 naming the right one (`Router.elsewhere`). `stackyard serve` runs every group.
 */
export type HandlerGroup = 'identity' | 'stacks' | 'updates' | 'secrets';

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
   * 404 for a route that belongs to another function: the API Gateway routes of this deployment do not match its
   * code (a partial or manual deployment), which only redeploying the whole stack repairs.
   */
  static elsewhere(route: Route, group: HandlerGroup): NotFoundError {
    return new NotFoundError(
      `${route.method} ${route.path} is served by the ${route.group} function, but this request reached the ${group} ` +
        'function: the API routes of this deployment do not match its functions; redeploy it (`cdk deploy`, docs/deploy.md).',
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
