import { InvalidInputError, NotFoundError } from '../../../shared/core/errors.js';
import { validateOrgName, validateProjectName, validateStackRef } from '../../../shared/core/names.js';
import type { Principal } from '../../../shared/core/kernel/principal.js';
import type { StackService } from '../../../shared/core/stacks/types.js';
import type { UntypedDeployment } from '../../../shared/core/checkpoints/types.js';
import type { StackRef } from '../../../shared/core/names.js';
import type { UpdateRecord } from '../../../shared/ports/update-store.js';
import { validateBody } from '../decode.js';
import { jsonResponse, noContentResponse, okResponse } from '../respond.js';
import type { Route } from '../router.js';
import { untypedDeploymentSchema } from '../schemas.js';
import { createStackSchema, renameStackSchema, tagsSchema } from '../schemas-stacks.js';
import { stackSummary, stackView, updateInfo } from '../wire.js';
import { checkStackConfig, createStackWithConfig, stackConfigRoutes } from './stack-config.js';

const STACK = '/api/stacks/{orgName}/{projectName}/{stackName}';
/** The store serves history pages of at most this many entries. */
const MAX_PAGE_SIZE = 100;

function toDeployment(value: { version: number; features?: string[] | null; deployment: Record<string, unknown> }): UntypedDeployment {
  return { version: value.version, ...(value.features ? { features: value.features } : {}), deployment: value.deployment };
}

function positiveInteger(text: string | null, what: string): number | undefined {
  if (text === null || text === '') return undefined;
  if (!/^[0-9]{1,9}$/.test(text)) throw new InvalidInputError(`${what} must be a whole number, got '${text.slice(0, 20)}'.`);
  return Number(text);
}

/** Without `pageSize` (or with `pageSize <= 0`) the CLI wants the whole history. */
async function fullHistory(stacks: StackService, principal: Principal, ref: StackRef): Promise<UpdateRecord[]> {
  const all: UpdateRecord[] = [];
  for (let page = 1; ; page += 1) {
    const updates = await stacks.history(principal, ref, page, MAX_PAGE_SIZE);
    all.push(...updates);
    if (updates.length < MAX_PAGE_SIZE) return all;
  }
}

export const stackRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/user/stacks',
    group: 'stacks',
    async handle(ctx) {
      const principal = await ctx.principal();
      const q = ctx.request.query;
      const page = await ctx.services.stacks.list(principal, {
        org: q.get('organization') || undefined,
        project: q.get('project') || undefined,
        tagName: q.get('tagName') || undefined,
        tagValue: q.get('tagValue') || undefined,
        continuationToken: q.get('continuationToken') || undefined,
      });
      // An empty token would make the CLI loop forever: the last page has none at all.
      return jsonResponse(200, {
        stacks: page.stacks.map(stackSummary),
        ...(page.continuationToken ? { continuationToken: page.continuationToken } : {}),
      });
    },
  },
  {
    method: 'HEAD',
    path: '/api/stacks/{orgName}/{projectName}',
    group: 'stacks',
    async handle(ctx) {
      const principal = await ctx.principal();
      const org = validateOrgName(ctx.params.orgName!);
      const project = validateProjectName(ctx.params.projectName!);
      const exists = await ctx.services.stacks.projectExists(principal, org, project);
      return noContentResponse(exists ? 200 : 404);
    },
  },
  {
    method: 'POST',
    path: '/api/stacks/{orgName}/{projectName}',
    group: 'stacks',
    async handle(ctx) {
      const principal = await ctx.principal();
      const body = validateBody(createStackSchema, await ctx.jsonBody(), 'create stack request');
      const ref = validateStackRef({ org: ctx.params.orgName!, project: ctx.params.projectName!, stack: body.stackName });
      const environment = body.config === undefined || body.config === null ? undefined : checkStackConfig(ref.org, body.config);
      const create = (configEnvironment?: string) =>
        ctx.services.stacks.create(principal, ref, {
          tags: body.tags ?? undefined,
          initialState: body.state ? toDeployment(body.state) : undefined,
          teams: body.teams ?? undefined,
          ...(configEnvironment !== undefined ? { configEnvironment } : {}),
        });
      const stack = environment === undefined ? await create() : await createStackWithConfig(ctx.services, principal, ref, environment, create);
      return jsonResponse(200, { ...stackView(stack), messages: [] });
    },
  },
  {
    method: 'GET',
    path: STACK,
    group: 'stacks',
    async handle(ctx) {
      const principal = await ctx.principal();
      const ref = ctx.stackRef();
      const stack = await ctx.services.stacks.get(principal, ref);
      // What `pulumi stack` prints as "<Kind> in progress"; an update that ended between the two reads shows none.
      const active = stack.activeUpdate
        ? await ctx.services.updates.status(principal, ref, stack.activeUpdate).catch((error: unknown) => {
            if (error instanceof NotFoundError) return undefined;
            throw error;
          })
        : undefined;
      return jsonResponse(200, stackView(stack, active?.status === 'in-progress' ? active : undefined));
    },
  },
  {
    method: 'DELETE',
    path: STACK,
    group: 'stacks',
    async handle(ctx) {
      const principal = await ctx.principal();
      await ctx.services.stacks.remove(principal, ctx.stackRef(), ctx.request.query.get('force') === 'true');
      return okResponse();
    },
  },
  {
    method: 'POST',
    path: `${STACK}/rename`,
    group: 'stacks',
    async handle(ctx) {
      const principal = await ctx.principal();
      const ref = ctx.stackRef();
      const body = validateBody(renameStackSchema, await ctx.jsonBody(), 'rename request');
      const stack = await ctx.services.stacks.rename(principal, ref, {
        project: body.newProject || ref.project,
        stack: body.newName,
      });
      return jsonResponse(200, stackView(stack));
    },
  },
  {
    method: 'PATCH',
    path: `${STACK}/tags`,
    group: 'stacks',
    async handle(ctx) {
      const principal = await ctx.principal();
      const ref = ctx.stackRef();
      const tags = validateBody(tagsSchema, await ctx.jsonBody(), 'tags (a JSON object of tag names to values)');
      await ctx.services.stacks.setTags(principal, ref, tags);
      return okResponse();
    },
  },
  {
    method: 'GET',
    path: `${STACK}/export`,
    group: 'stacks',
    async handle(ctx) {
      const principal = await ctx.principal();
      return jsonResponse(200, await ctx.services.stacks.exportDeployment(principal, ctx.stackRef()));
    },
  },
  {
    method: 'GET',
    path: `${STACK}/export/{version}`,
    group: 'stacks',
    async handle(ctx) {
      const principal = await ctx.principal();
      const ref = ctx.stackRef();
      const version = positiveInteger(ctx.params.version!, 'The stack version');
      if (version === undefined || version < 1) throw new InvalidInputError('The stack version must be 1 or more.');
      return jsonResponse(200, await ctx.services.stacks.exportDeployment(principal, ref, version));
    },
  },
  {
    method: 'POST',
    path: `${STACK}/import`,
    group: 'stacks',
    async handle(ctx) {
      const principal = await ctx.principal();
      const ref = ctx.stackRef();
      const body = validateBody(untypedDeploymentSchema, await ctx.jsonBody(), 'deployment to import');
      const { updateId } = await ctx.services.stacks.importDeployment(principal, ref, toDeployment(body));
      return jsonResponse(200, { updateId });
    },
  },
  {
    method: 'GET',
    path: `${STACK}/updates`,
    group: 'stacks',
    async handle(ctx) {
      const principal = await ctx.principal();
      const ref = ctx.stackRef();
      const pageSize = positiveInteger(ctx.request.query.get('pageSize'), 'pageSize');
      const page = Math.max(1, positiveInteger(ctx.request.query.get('page'), 'page') ?? 1);
      if (pageSize !== undefined && pageSize > MAX_PAGE_SIZE) {
        throw new InvalidInputError(`pageSize must be at most ${MAX_PAGE_SIZE}; page through longer histories.`);
      }
      const updates =
        pageSize === undefined || pageSize <= 0
          ? await fullHistory(ctx.services.stacks, principal, ref)
          : await ctx.services.stacks.history(principal, ref, page, pageSize);
      return jsonResponse(200, { updates: updates.map(updateInfo) });
    },
  },
  {
    method: 'GET',
    path: `${STACK}/updates/latest`,
    group: 'stacks',
    async handle(ctx) {
      const principal = await ctx.principal();
      return jsonResponse(200, { info: updateInfo(await ctx.services.stacks.latestUpdate(principal, ctx.stackRef())) });
    },
  },
  ...stackConfigRoutes,
];
