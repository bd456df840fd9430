/**
 * Every JSON-bodied route, driven from the route table and the body schema each route declares (OPERATIONS, which
 * the OpenAPI test keeps equal to API_ROUTES): each field of the body, and each field inside it down to a resource in
 * a journal entry, gets values of the wrong type — an object with its own `toString`, an array, a number, null, a
 * string, a boolean — while the other fields stay valid. A value the field's schema refuses must be answered 400 naming the field; any value at all must
 * be answered without a 5xx. A route that reads a body it does not declare is still sent wrong-typed fields, and must
 * not answer 5xx either.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as z from 'zod/mini';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalStorage } from '../../shared/adapters/local/index.js';
import { createServices } from '../../shared/core/compose/create-services.js';
import type { Storage } from '../../shared/ports/index.js';
import { createApi, type ApiHandler } from './api.js';
import { OPERATIONS, type OperationDoc } from './openapi/operations.js';
import { API_ROUTES } from './routes/index.js';
import type { HttpResponse } from './types.js';

const TOKEN = 'sy_body-fields-admin';
const silent = { error: () => undefined, warn: () => undefined, info: () => undefined };

/** Values of every JSON type, plus the object whose `toString` is not a function (String(x) throws on it). */
const WRONG_VALUES: readonly unknown[] = [{ toString: 1 }, ['x'], 7, null, 'x', true];
/**
 * What a valid field is filled with: the first the field's schema accepts (an enum's first member, an object's own
 * sample); base64 and a hex digest for the fields that are encoded.
 */
const FILLERS: readonly unknown[] = [undefined, null, 'eA==', 1, true, [], {}, 'a'.repeat(64)];

interface ZodDef {
  type: string;
  shape?: Record<string, z.ZodMiniType>;
  innerType?: z.ZodMiniType;
  element?: z.ZodMiniType;
  valueType?: z.ZodMiniType;
  options?: z.ZodMiniType[];
  entries?: Record<string, string>;
}

const defOf = (schema: z.ZodMiniType): ZodDef => (schema as unknown as { _zod: { def: ZodDef } })._zod.def;

/** The schema under optional / nullable wrappers. */
function unwrap(schema: z.ZodMiniType): z.ZodMiniType {
  const def = defOf(schema);
  return (def.type === 'optional' || def.type === 'nullable') && def.innerType ? unwrap(def.innerType) : schema;
}

/** The object shapes a body may take (a union of objects is each of them). */
function shapesOf(schema: z.ZodMiniType): Record<string, z.ZodMiniType>[] {
  const def = defOf(unwrap(schema));
  if (def.type === 'object') return [def.shape!];
  if (def.type === 'union') return def.options!.flatMap(shapesOf);
  return [];
}

function validSample(schema: z.ZodMiniType): unknown {
  const def = defOf(schema);
  if (def.type === 'enum') return Object.values(def.entries!)[0];
  if (def.type === 'object') return sampleOf(def.shape!);
  return FILLERS.find((value) => schema.safeParse(value).success);
}

function sampleOf(shape: Record<string, z.ZodMiniType>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(shape)) {
    const value = validSample(field);
    if (value !== undefined) body[name] = value;
  }
  return body;
}

interface Probe {
  /** The field's path, as the answer must name it (`ciphertexts.0`, `entries.0.state.urn`). */
  path: string;
  body: unknown;
  /** Whether the body schema refuses it (then 400 naming the field), else only "no 5xx". */
  refused: boolean;
}

/** How deep into a body the wrong values are placed: deep enough for a resource inside a journal entry. */
const MAX_DEPTH = 4;

interface Placement {
  path: string[];
  /** The value for this spot with `wrong` placed at `path` inside it, everything around it valid. */
  place(wrong: unknown): unknown;
}

/** Every spot inside a value of `schema` a wrong value can go, down to `depth` levels. */
function placements(schema: z.ZodMiniType, depth: number): Placement[] {
  const spots: Placement[] = [{ path: [], place: (wrong) => wrong }];
  if (depth === 0) return spots;
  const inner = unwrap(schema);
  const def = defOf(inner);
  const nest = (key: string, child: z.ZodMiniType, wrap: (value: unknown) => unknown) => {
    for (const spot of placements(child, depth - 1)) spots.push({ path: [key, ...spot.path], place: (wrong) => wrap(spot.place(wrong)) });
  };
  if (def.type === 'array') nest('0', def.element!, (value) => [value]);
  if (def.type === 'record') nest('k', def.valueType!, (value) => ({ k: value }));
  for (const shape of def.type === 'object' || def.type === 'union' ? shapesOf(inner) : []) {
    for (const [member, child] of Object.entries(shape)) nest(member, child, (value) => ({ ...sampleOf(shape), [member]: value }));
  }
  return spots;
}

/** The body with one wrong value at each spot, everything else valid. */
function probesOf(schema: z.ZodMiniType): Probe[] {
  return placements(schema, MAX_DEPTH)
    .filter((spot) => spot.path.length > 0)
    .flatMap((spot) =>
      WRONG_VALUES.map((wrong) => {
        const body = spot.place(wrong);
        return { path: spot.path.join('.'), body, refused: !schema.safeParse(body).success };
      }),
    );
}

/** Whether `message` names the field at `path`, or the part of it that holds the wrong value, in quotes. */
function namesField(message: string, path: string): boolean {
  const segments = path.split('.');
  const candidates = segments.map((_segment, i) => segments.slice(0, i + 1).join('.'));
  candidates.push(...segments.filter((segment) => !/^\d+$/.test(segment) && segment !== 'k'));
  for (let i = 1; i < segments.length; i += 1) candidates.push(segments.slice(i).join('.'));
  const quoted = (name: string) => new RegExp(`['"]${name.replace(/\./g, '\\.')}['".]`).test(message);
  return candidates.some(quoted);
}

/** Routes with a JSON body declared, and every route (each is sent stray wrong-typed fields as well). */
const declared = API_ROUTES.map((route) => ({ route, doc: OPERATIONS[`${route.method} ${route.path}`] as OperationDoc }));
const jsonBodied = declared.filter(({ doc }) => doc.body !== undefined);
/** Every top-level field name any body declares: what a route that reads an undeclared body would read. */
const ALL_FIELDS = [...new Set(jsonBodied.flatMap(({ doc }) => shapesOf(doc.body!).flatMap((shape) => Object.keys(shape))))];

describe('request body decoding, for every route of the table', () => {
  let dataDir: string;
  let storage: Storage;
  let api: ApiHandler;
  let leaseToken: string;
  let updateId: string;

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(join(tmpdir(), 'stackyard-body-fields-'));
    storage = await createLocalStorage({ dataDir });
    const services = createServices(storage, { serviceUrl: 'http://body-fields.invalid' });
    await services.identity.ensureAdmin('admin', TOKEN);
    const admin = await services.identity.authenticate(TOKEN);
    const ref = { org: 'admin', project: 'proj', stack: 'dev' };
    await services.stacks.create(admin, ref);
    ({ updateId } = await services.updates.create(admin, ref, { kind: 'update', dryRun: false }));
    ({ token: leaseToken } = await services.updates.start(admin, ref, updateId, {}));
    api = createApi({ services, logger: silent });
  });

  afterAll(async () => {
    await storage.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  async function send(route: (typeof declared)[number], body: unknown): Promise<HttpResponse & { message: string }> {
    const params: Record<string, string> = { orgName: 'admin', projectName: 'proj', stackName: 'dev', updateId };
    const path = route.route.path.replace(/\{([^}]+)\}/g, (_all, name: string) => params[name] ?? 'x');
    const auth = route.doc.auth === 'token' ? `token ${TOKEN}` : route.doc.auth === 'update-token' ? `update-token ${leaseToken}` : undefined;
    const response = await api({
      method: route.route.method,
      path,
      headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) },
      query: new URLSearchParams(),
      body: Buffer.from(JSON.stringify(body)),
      requestId: 'body-fields',
    });
    const text = response.body.toString('utf8');
    let message = text;
    try {
      message = String((JSON.parse(text) as { message?: unknown }).message ?? text);
    } catch {
      // Not JSON (HEAD, the console's HTML): the text itself.
    }
    return { ...response, message };
  }

  it('covers the routes that read a JSON body', () => {
    expect(jsonBodied.length).toBeGreaterThan(30);
    expect(jsonBodied.map(({ route }) => route.path)).toContain('/api/stacks/{orgName}/{projectName}/{stackName}/decrypt/log-decryption');
  });

  it.each(jsonBodied.map((entry) => [`${entry.route.method} ${entry.route.path}`, entry] as const))(
    '%s answers 400 naming each wrong-typed field',
    async (_key, entry) => {
      const failures: string[] = [];
      const probes = probesOf(entry.doc.body!);
      expect(probes.some((probe) => probe.refused)).toBe(true);
      for (const probe of probes) {
        const answer = await send(entry, probe.body);
        if (answer.status >= 500 || (probe.refused && (answer.status !== 400 || !namesField(answer.message, probe.path)))) {
          failures.push(`${probe.path} = ${JSON.stringify(probe.body)} → ${answer.status} ${answer.message.slice(0, 160)}`);
        }
      }
      expect(failures).toEqual([]);
    },
  );

  it.each(declared.map((entry) => [`${entry.route.method} ${entry.route.path}`, entry] as const))(
    '%s never answers 5xx to stray wrong-typed fields',
    async (_key, entry) => {
      const failures: string[] = [];
      for (const wrong of WRONG_VALUES) {
        const answer = await send(entry, Object.fromEntries(ALL_FIELDS.map((field) => [field, wrong])));
        if (answer.status >= 500) failures.push(`${JSON.stringify(wrong)} → ${answer.status} ${answer.message.slice(0, 160)}`);
      }
      expect(failures).toEqual([]);
    },
  );
});
