import * as z from 'zod/mini';
import { CSRF_HEADER, SESSION_COOKIE } from '../console-session.js';
import type { Route } from '../router.js';
import { OPERATIONS, type OperationDoc } from './operations.js';
import { emptyObject, errorBody } from './responses.js';

/**
 * The OpenAPI 3.1 document of the API, built from the route table (methods, paths, path parameters) and the zod
 * schemas the routes validate with (operations.ts), converted by zod's own `z.toJSONSchema` (JSON Schema 2020-12,
 * the dialect OpenAPI 3.1 uses). Only GET /api/openapi.json loads this module, and only when asked.
 */

type JsonObject = Record<string, unknown>;

/** Thrown when the route table and operations.ts disagree: every route must be described, and only routes. */
export class UndocumentedRouteError extends Error {
  constructor(
    readonly undocumented: readonly string[],
    readonly unknown: readonly string[],
  ) {
    super(
      [
        undocumented.length > 0 ? `routes without an entry in functions/http/openapi/operations.ts: ${undocumented.join(', ')}` : '',
        unknown.length > 0 ? `operations.ts entries that name no route: ${unknown.join(', ')}` : '',
      ]
        .filter(Boolean)
        .join('; '),
    );
    this.name = 'UndocumentedRouteError';
  }
}

const PATH_PARAMETERS: Record<string, string> = {
  orgName: 'Organization name',
  projectName: 'Project name',
  stackName: 'Stack name',
  updateId: 'Update id (from creating the update)',
  version: 'Stack version (1 or more), or an update id',
  tokenId: 'Token id',
  hookName: 'Hook name',
  deliveryId: 'Delivery id',
  userLogin: "The member's login",
  teamName: 'Team name',
  policyId: 'OIDC trust policy id',
  envName: 'Environment name',
  openSessionId: 'Open session id (from opening the environment)',
  tagName: 'Revision tag name',
  policyPackName: 'Policy pack name',
  versionTag: "The pack version's tag (its package.json version)",
  policyGroup: 'Policy group name',
};

const SECURITY: Record<OperationDoc['auth'], JsonObject[]> = {
  token: [{ apiToken: [] }, { consoleSession: [] }],
  'update-token': [{ updateToken: [] }],
  body: [],
  none: [],
  'upload-ticket': [{ uploadTicket: [] }],
};

const TARBALL = { 'application/gzip': { schema: { type: 'string', format: 'binary' } } };

function jsonSchema(schema: z.ZodMiniType): JsonObject {
  const converted = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as JsonObject;
  // The document's dialect (jsonSchemaDialect) applies; a `$schema` inside each component is noise.
  delete converted.$schema;
  return converted;
}

const jsonContent = (schema: JsonObject) => ({ 'application/json': { schema } });

function errorResponses(): JsonObject {
  const error = { $ref: '#/components/schemas/Error' };
  return {
    '4XX': { description: 'Refused: the message says what to fix. Nothing was changed.', content: jsonContent(error) },
    '500': { description: 'A bug; the message names the request id', content: jsonContent(error) },
    '503': {
      description: 'Storage unavailable; retry after the given seconds. Nothing was changed.',
      headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
      content: jsonContent(error),
    },
  };
}

/** What the document needs of a route: its method and path. */
export type RouteKey = Pick<Route, 'method' | 'path'>;

/**
 * The routes operations.ts describes, which test/api/openapi.test.ts holds equal to `API_ROUTES`: the served
 * document is built from these, so the identity function need not bundle every other function's routes.
 */
export function documentedRoutes(): RouteKey[] {
  return Object.keys(OPERATIONS).map((key) => {
    const [method, path] = key.split(' ') as [string, string];
    return { method, path };
  });
}

function operation(route: RouteKey, doc: OperationDoc): JsonObject {
  const parameters: JsonObject[] = [];
  for (const [, name] of route.path.matchAll(/\{([A-Za-z0-9_]+)\}/g)) {
    parameters.push({ name, in: 'path', required: true, description: PATH_PARAMETERS[name] ?? name, schema: { type: 'string' } });
  }
  for (const query of doc.query ?? []) {
    parameters.push({ name: query.name, in: 'query', required: false, description: query.description, schema: { type: query.type } });
  }
  const success = doc.yaml
    ? { description: 'Done', content: { 'application/x-yaml': { schema: { type: 'string' } } } }
    : doc.tarball === 'answer'
      ? { description: 'The policy pack tarball', content: TARBALL }
      : doc.response === null || doc.status === 204
      ? { description: 'Done' }
      : { description: 'Done', content: jsonContent(jsonSchema(doc.response ?? emptyObject)) };
  return {
    operationId: operationId(route),
    summary: doc.summary,
    tags: [doc.tag],
    security: SECURITY[doc.auth],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(doc.body
      ? {
          requestBody: {
            required: !doc.bodyOptional,
            description: 'JSON, optionally gzip-compressed (Content-Encoding: gzip)',
            content: jsonContent(jsonSchema(doc.body)),
          },
        }
      : {}),
    ...(doc.tarball === 'body' ? { requestBody: { required: true, description: "The pack's npm pack tarball", content: TARBALL } } : {}),
    ...(doc.form
      ? { requestBody: { required: true, description: 'Form-encoded', content: { 'application/x-www-form-urlencoded': { schema: jsonSchema(doc.form) } } } }
      : {}),
    responses: { [String(doc.status ?? 200)]: success, ...errorResponses() },
  };
}

/** `POST /api/stacks/{orgName}/…/rename` → `postStacksOrgNameProjectNameStackNameRename`: unique per method+path. */
function operationId(route: RouteKey): string {
  const words = route.path
    .replace(/^\/api\//, '')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1));
  return route.method.toLowerCase() + words.join('');
}

/** The document for `routes`; throws {@link UndocumentedRouteError} unless operations.ts describes exactly them. */
export function buildOpenApiDocument(routes: readonly RouteKey[], version: string): JsonObject {
  const keys = new Set(routes.map((route) => `${route.method} ${route.path}`));
  const undocumented = [...keys].filter((key) => !(key in OPERATIONS));
  const unknown = Object.keys(OPERATIONS).filter((key) => !keys.has(key));
  if (undocumented.length > 0 || unknown.length > 0) throw new UndocumentedRouteError(undocumented, unknown);

  const paths: Record<string, JsonObject> = {};
  for (const route of routes) {
    const item = (paths[route.path] ??= {});
    item[route.method.toLowerCase()] = operation(route, OPERATIONS[`${route.method} ${route.path}`]!);
  }
  return {
    openapi: '3.1.1',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Stackyard API',
      version,
      summary: 'The Pulumi service API as Stackyard serves it, plus its own admin, hook, audit and console routes',
      description:
        'Errors are `{"code": <HTTP status>, "message"}`; every response carries `X-Pulumi-Request-ID`. Bodies may be ' +
        'gzip-compressed both ways. See docs/api.md for the wire rules and what differs from the Pulumi Cloud service.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas: { Error: jsonSchema(errorBody) },
      headers: {
        RetryAfter: { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 0 } },
      },
      securitySchemes: {
        apiToken: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: '`Authorization: token <access token>` (what `pulumi login` stores)',
        },
        updateToken: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: "`Authorization: update-token <lease token>` from starting the update; a stale one gets 403",
        },
        uploadTicket: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Stackyard-Upload-Ticket',
          description: 'The one-time ticket a policy pack publish returned in requiredHeaders, for its upload only',
        },
        consoleSession: {
          type: 'apiKey',
          in: 'cookie',
          name: SESSION_COOKIE,
          description: `The web console session; changes also need its CSRF token in the ${CSRF_HEADER} header`,
        },
      },
    },
  };
}
