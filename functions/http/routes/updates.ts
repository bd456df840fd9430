import { InvalidInputError } from '../../../shared/core/errors.js';
import { requestInfo } from '../auth.js';
import { decodeBodyChunks, isGzipped, validateBody } from '../decode.js';
import { jsonResponse, okResponse } from '../respond.js';
import type { RouteContext } from '../context.js';
import type { Route } from '../router.js';
import { completeUpdateSchema, engineEventsSchema, renewLeaseSchema, startUpdateSchema, updateProgramSchema } from '../schemas-updates.js';
import { updateResults } from '../wire.js';

const STACK = '/api/stacks/{orgName}/{projectName}/{stackName}';
/** Every call after create uses the literal `update` segment, whatever the kind (the CLI's getUpdatePath). */
const UPDATE = `${STACK}/update/{updateId}`;

function createRoute(kind: 'update' | 'preview' | 'refresh' | 'destroy'): Route {
  return {
    method: 'POST',
    path: `${STACK}/${kind}`,
    group: 'updates',
    async handle(ctx) {
      const principal = await ctx.principal();
      const ref = ctx.stackRef();
      const body = validateBody(updateProgramSchema, (await ctx.jsonBody()) ?? {}, `${kind} request`);
      // `requiredPolicies`: the packs of every policy group holding the stack, which the CLI downloads and runs and
      // the service checks for when the update completes (docs/policy.md).
      const { updateId, requiredPolicies } = await ctx.services.updates.create(principal, ref, {
        kind,
        // `pulumi up`, `refresh` and `destroy` first run a dry run of the same kind; previews always are one.
        dryRun: kind === 'preview' || body.options?.dryRun === true,
        message: body.metadata?.message ?? undefined,
        environment: body.metadata?.environment ?? undefined,
        config: body.config ?? undefined,
      });
      return jsonResponse(200, { updateID: updateId, requiredPolicies, messages: [] });
    },
  };
}

/** Lease-token routes whose whole job is "hand the exact decoded bytes to the update service". */
function rawSaveRoute(
  segment: 'checkpointverbatim' | 'checkpointdelta' | 'journalentries',
  save: (ctx: RouteContext, token: string, body: Buffer) => Promise<void>,
): Route {
  return {
    method: 'PATCH',
    path: `${UPDATE}/${segment}`,
    group: 'updates',
    async handle(ctx) {
      const token = ctx.updateToken();
      const body = await ctx.rawBody();
      if (body.length === 0) throw new InvalidInputError(`The ${segment} request has no body; send the JSON document.`);
      await save(ctx, token, body);
      return okResponse();
    },
  };
}

export const updateRoutes: Route[] = [
  createRoute('update'),
  createRoute('preview'),
  createRoute('refresh'),
  createRoute('destroy'),
  {
    method: 'POST',
    path: UPDATE,
    group: 'updates',
    async handle(ctx) {
      const principal = await ctx.principal();
      const ref = ctx.stackRef();
      const body = validateBody(startUpdateSchema, await ctx.jsonBody(), 'start request');
      const started = await ctx.services.updates.start(principal, ref, ctx.params.updateId!, {
        tags: body?.tags ?? undefined,
        journalVersion: body?.journalVersion ?? undefined,
        leaseDurationMs: body?.leaseDurationSeconds ? body.leaseDurationSeconds * 1000 : undefined,
        plan: body?.stackyardPlan ?? undefined,
      });
      return jsonResponse(200, started);
    },
  },
  {
    method: 'GET',
    path: UPDATE,
    group: 'updates',
    async handle(ctx) {
      const principal = await ctx.principal();
      const { status } = await ctx.services.updates.status(principal, ctx.stackRef(), ctx.params.updateId!);
      return jsonResponse(200, updateResults(status));
    },
  },
  {
    method: 'POST',
    path: `${UPDATE}/renew_lease`,
    group: 'updates',
    async handle(ctx) {
      const token = ctx.updateToken();
      const ref = ctx.stackRef();
      const body = validateBody(renewLeaseSchema, await ctx.jsonBody(), 'renew_lease request');
      const duration = body?.duration ? body.duration * 1000 : undefined;
      const renewed = await ctx.services.updates.renew(ref, ctx.params.updateId!, token, duration);
      return jsonResponse(200, renewed);
    },
  },
  // The hot path: the token is checked while the body is inflated and checked a chunk at a time, never held
  // inflated whole; the client's gzip bytes are what gets stored.
  {
    method: 'PATCH',
    path: `${UPDATE}/checkpoint`,
    group: 'updates',
    async handle(ctx) {
      const token = ctx.updateToken();
      const ref = ctx.stackRef();
      const request = ctx.request;
      const chunks = async function* () {
        let size = 0;
        for await (const chunk of decodeBodyChunks(request)) {
          size += chunk.length;
          yield chunk;
        }
        if (size === 0) throw new InvalidInputError('The checkpoint request has no body; send the JSON document.');
      };
      const gzipped = isGzipped(request) ? request.body : undefined;
      await ctx.services.updates.saveCheckpoint(ref, ctx.params.updateId!, token, { chunks, gzipped });
      return okResponse();
    },
  },
  rawSaveRoute('checkpointverbatim', (ctx, token, body) =>
    ctx.services.updates.saveVerbatimCheckpoint(ctx.stackRef(), ctx.params.updateId!, token, body),
  ),
  rawSaveRoute('checkpointdelta', (ctx, token, body) =>
    ctx.services.updates.saveDeltaCheckpoint(ctx.stackRef(), ctx.params.updateId!, token, body),
  ),
  rawSaveRoute('journalentries', (ctx, token, body) =>
    ctx.services.updates.saveJournalEntries(ctx.stackRef(), ctx.params.updateId!, token, body),
  ),
  {
    method: 'POST',
    path: `${UPDATE}/events/batch`,
    group: 'updates',
    async handle(ctx) {
      const token = ctx.updateToken();
      const ref = ctx.stackRef();
      const body = validateBody(engineEventsSchema, await ctx.jsonBody(), 'engine events batch');
      await ctx.services.updates.recordEvents(ref, ctx.params.updateId!, token, body.events ?? []);
      return okResponse();
    },
  },
  {
    method: 'POST',
    path: `${UPDATE}/complete`,
    group: 'updates',
    async handle(ctx) {
      const token = ctx.updateToken();
      const ref = ctx.stackRef();
      const body = validateBody(completeUpdateSchema, await ctx.jsonBody(), 'complete request');
      await ctx.services.updates.complete(ref, ctx.params.updateId!, token, body.status, requestInfo(ctx.request));
      return okResponse();
    },
  },
  {
    method: 'POST',
    path: `${UPDATE}/cancel`,
    group: 'updates',
    async handle(ctx) {
      const principal = await ctx.principal();
      await ctx.services.updates.cancel(principal, ctx.stackRef(), ctx.params.updateId!);
      return okResponse();
    },
  },
];
