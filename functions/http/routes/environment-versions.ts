import type { RevisionTagView } from '../../../shared/core/environments/types.js';
import { InvalidInputError } from '../../../shared/core/errors.js';
import { validateBody } from '../decode.js';
import { jsonResponse, noContentResponse } from '../respond.js';
import type { Route } from '../router.js';
import { createRevisionTagSchema, environmentGrantSchema, updateRevisionTagSchema } from '../schemas-environments.js';
import { integerQuery } from './environment-query.js';
import { versionedRoutes, type EnvironmentRoutesBase } from './environment-kit.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** ESC's EnvironmentRevisionTag. */
function tagView(tag: RevisionTagView) {
  return { name: tag.name, revision: tag.revision, created: iso(tag.createdAt), modified: iso(tag.modifiedAt), editorLogin: tag.editorLogin, editorName: tag.editorLogin };
}

/**
 * An environment's revision history (`esc env version history`), its revisions by number or tag (`env get
 * <env>@<version>`, `open`, `rollback` reads one and saves it again), revision tags (`env version tag`), and its
 * permissions (Stackyard's own route, as for stacks).
 */
export function environmentVersionRoutes(family: EnvironmentRoutesBase): Route[] {
  const { base, refOf } = family;
  const tags = `${base}/versions/tags`;
  return [
    {
      method: 'GET',
      path: `${base}/versions`,
      group: 'secrets',
      async handle(ctx) {
        const principal = await ctx.principal();
        const options = { before: integerQuery(ctx.request.query, 'before'), count: integerQuery(ctx.request.query, 'count') };
        const revisions = await ctx.services.environments.listRevisions(principal, refOf(ctx), options);
        return jsonResponse(
          200,
          revisions.map((r) => ({ number: r.number, created: iso(r.createdAt), creatorLogin: r.creatorLogin, creatorName: r.creatorLogin, tags: r.tags })),
        );
      },
    },
    ...versionedRoutes(family, `${base}/versions/{version}`, (ctx) => ctx.params.version),
    {
      method: 'GET',
      path: tags,
      group: 'secrets',
      async handle(ctx) {
        const list = await ctx.services.environments.listRevisionTags(await ctx.principal(), refOf(ctx));
        return jsonResponse(200, { tags: list.map(tagView), nextToken: '' });
      },
    },
    {
      method: 'POST',
      path: tags,
      group: 'secrets',
      async handle(ctx) {
        const principal = await ctx.principal();
        const body = validateBody(createRevisionTagSchema, await ctx.jsonBody(), 'create tag request');
        await ctx.services.environments.createRevisionTag(principal, refOf(ctx), body.name, body.revision ?? undefined);
        return noContentResponse(204);
      },
    },
    {
      method: 'GET',
      path: `${tags}/{tagName}`,
      group: 'secrets',
      async handle(ctx) {
        return jsonResponse(200, tagView(await ctx.services.environments.getRevisionTag(await ctx.principal(), refOf(ctx), ctx.params.tagName!)));
      },
    },
    {
      method: 'PATCH',
      path: `${tags}/{tagName}`,
      group: 'secrets',
      async handle(ctx) {
        const principal = await ctx.principal();
        const body = validateBody(updateRevisionTagSchema, await ctx.jsonBody(), 'update tag request');
        await ctx.services.environments.updateRevisionTag(principal, refOf(ctx), ctx.params.tagName!, body.revision ?? undefined);
        return noContentResponse(204);
      },
    },
    {
      method: 'DELETE',
      path: `${tags}/{tagName}`,
      group: 'secrets',
      async handle(ctx) {
        await ctx.services.environments.deleteRevisionTag(await ctx.principal(), refOf(ctx), ctx.params.tagName!);
        return noContentResponse(204);
      },
    },
    {
      method: 'GET',
      path: `${base}/permissions`,
      group: 'secrets',
      async handle(ctx) {
        return jsonResponse(200, { grants: await ctx.services.environments.listGrants(await ctx.principal(), refOf(ctx)) });
      },
    },
    {
      method: 'PATCH',
      path: `${base}/permissions`,
      group: 'secrets',
      async handle(ctx) {
        const principal = await ctx.principal();
        const body = validateBody(environmentGrantSchema, await ctx.jsonBody(), 'environment permission request');
        if ((body.user === undefined) === (body.team === undefined)) throw new InvalidInputError('Give exactly one of a user or a team.');
        const target = body.user !== undefined ? { user: body.user } : { team: body.team! };
        await ctx.services.environments.setGrant(principal, refOf(ctx), target, body.permission);
        return jsonResponse(200, {});
      },
    },
  ];
}
