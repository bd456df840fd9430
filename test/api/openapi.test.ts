import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import * as z from 'zod/mini';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, type ApiHandler } from '../../functions/http/api.js';
import { buildOpenApiDocument, documentedRoutes, UndocumentedRouteError } from '../../functions/http/openapi/document.js';
import { OPERATIONS } from '../../functions/http/openapi/operations.js';
import type { ApiLogger } from '../../functions/http/respond.js';
import type { Route } from '../../functions/http/router.js';
import { API_ROUTES } from '../../functions/http/routes/index.js';
import { untypedDeploymentSchema } from '../../functions/http/schemas.js';
import { createStackSchema } from '../../functions/http/schemas-stacks.js';
import { createLocalStorage } from '../../shared/adapters/local/index.js';
import { createServices } from '../../shared/core/compose/create-services.js';

type Json = Record<string, any>;

const silent: ApiLogger = { error() {}, warn() {}, info() {} };
const TOKEN = 'sy_openapi-test-admin-token';

/** Every route `routes/index.ts` serves, as `METHOD path`, the way the document's paths spell it. */
const routeKeys = API_ROUTES.map((route) => `${route.method} ${route.path}`);

describe('the OpenAPI document', () => {
  const document = buildOpenApiDocument(API_ROUTES, 'test') as Json;

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('has an operation for every route of the route table and no other', () => {
    const documented = Object.entries(document.paths as Json).flatMap(([path, item]) =>
      Object.keys(item as Json).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual([...routeKeys].sort());
  });

  it.each(API_ROUTES.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s: path parameters, body, success and error answers',
    (key, route) => {
      const op = (document.paths as Json)[route.path][route.method.toLowerCase()] as Json;
      const doc = OPERATIONS[key]!;
      const pathParams = [...route.path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]);
      const parameters = (op.parameters ?? []) as Json[];
      expect(parameters.filter((p) => p.in === 'path').map((p) => p.name)).toEqual(pathParams);
      expect(parameters.filter((p) => p.in === 'path').every((p) => p.required === true)).toBe(true);
      expect(parameters.filter((p) => p.in === 'query').map((p) => p.name)).toEqual((doc.query ?? []).map((q) => q.name));
      if (doc.body) {
        expect(op.requestBody.content['application/json'].schema).toMatchObject(
          stripSchemaKey(z.toJSONSchema(doc.body, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Json),
        );
        expect(op.requestBody.required).toBe(!doc.bodyOptional);
      } else if (doc.form) {
        expect(op.requestBody.content['application/x-www-form-urlencoded'].schema).toMatchObject(
          stripSchemaKey(z.toJSONSchema(doc.form, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Json),
        );
      } else if (doc.tarball === 'body') {
        expect(op.requestBody.content['application/gzip'].schema).toEqual({ type: 'string', format: 'binary' });
      } else {
        expect(op.requestBody).toBeUndefined();
      }
      const success = op.responses[String(doc.status ?? 200)] as Json;
      expect(success).toBeDefined();
      const answer = doc.yaml ? 'application/x-yaml' : doc.tarball === 'answer' ? 'application/gzip' : 'application/json';
      if (route.method !== 'HEAD' && doc.status !== 204) expect(success.content[answer].schema).toBeTypeOf('object');
      for (const status of ['4XX', '500', '503']) {
        expect(op.responses[status].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
      }
      expect(op.responses['503'].headers['Retry-After']).toEqual({ $ref: '#/components/headers/RetryAfter' });
      expect(op.security).toBeInstanceOf(Array);
    },
  );

  it('describes request bodies with the zod schemas the routes validate with', () => {
    const create = (document.paths as Json)['/api/stacks/{orgName}/{projectName}'].post.requestBody.content['application/json'].schema;
    expect(create.required).toEqual(['stackName']);
    expect(create.properties.stackName).toEqual({ type: 'string' });
    // Changing the route's schema changes the document: it is converted, not copied.
    expect(OPERATIONS['POST /api/stacks/{orgName}/{projectName}']!.body).toBe(createStackSchema);
    const checkpoint = (document.paths as Json)['/api/stacks/{orgName}/{projectName}/{stackName}/update/{updateId}/checkpoint'].patch;
    expect(OPERATIONS['PATCH /api/stacks/{orgName}/{projectName}/{stackName}/update/{updateId}/checkpoint']!.body).toBe(untypedDeploymentSchema);
    expect(checkpoint.requestBody.content['application/json'].schema.properties.version).toMatchObject({ type: 'integer', minimum: 1, maximum: 4 });
    expect(checkpoint.security).toEqual([{ updateToken: [] }]);
  });

  it('refuses to build, naming the route, when a route has no entry in operations.ts', () => {
    const extra: Route = { method: 'POST', path: '/api/made-up/{thing}', group: 'identity', handle: async () => ({ status: 200, headers: {}, body: Buffer.alloc(0) }) };
    expect(() => buildOpenApiDocument([...API_ROUTES, extra], 'test')).toThrow(UndocumentedRouteError);
    expect(() => buildOpenApiDocument([...API_ROUTES, extra], 'test')).toThrow(/POST \/api\/made-up\/\{thing\}/);
    expect(() => buildOpenApiDocument(API_ROUTES.slice(1), 'test')).toThrow(/entries that name no route: GET \/api\/user\b/);
  });

  it('is served from the routes operations.ts lists, which are exactly the route table', () => {
    expect(documentedRoutes().map((route) => `${route.method} ${route.path}`).sort()).toEqual([...routeKeys].sort());
    expect(buildOpenApiDocument(documentedRoutes(), 'test')).toEqual(document);
  });

  it('gives every operation a unique operationId', () => {
    const ids = Object.values(document.paths as Json).flatMap((item) => Object.values(item as Json).map((op) => (op as Json).operationId));
    expect(new Set(ids).size).toBe(routeKeys.length);
  });
});

describe('GET /api/openapi.json', () => {
  let dataDir: string;
  let api: ApiHandler;

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(join(tmpdir(), 'stackyard-openapi-'));
    const services = createServices(await createLocalStorage({ dataDir }), { serviceUrl: 'http://openapi.invalid' });
    await services.identity.ensureAdmin('admin', TOKEN);
    api = createApi({ services, logger: silent });
  });
  afterAll(async () => fs.rm(dataDir, { recursive: true, force: true }));

  const get = (headers: Record<string, string>) =>
    api({ method: 'GET', path: '/api/openapi.json', headers, query: new URLSearchParams(), body: Buffer.alloc(0), requestId: randomUUID() });

  it('serves the document to any authenticated caller', async () => {
    const response = await get({ authorization: `token ${TOKEN}` });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json');
    const served = JSON.parse(response.body.toString('utf8')) as Json;
    expect(served.openapi).toBe('3.1.1');
    expect(Object.keys(served.paths)).toContain('/api/openapi.json');
    expect(served.paths).toEqual(buildOpenApiDocument(API_ROUTES, 'test').paths);
  });

  it('answers 401 in the error shape without credentials', async () => {
    const response = await get({});
    expect(response.status).toBe(401);
    expect(JSON.parse(response.body.toString('utf8'))).toMatchObject({ code: 401, message: expect.any(String) });
  });
});

function stripSchemaKey(schema: Json): Json {
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}
