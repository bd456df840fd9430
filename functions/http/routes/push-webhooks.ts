import { requestInfo } from '../auth.js';
import { jsonResponse } from '../respond.js';
import type { Route } from '../router.js';

/**
 * Push to deploy (docs/deployments.md): Stackyard's own route, as Pulumi Cloud publishes no per-stack webhook URL
 * (its GitHub app and Custom VCS integrations are per organization). No API token: the delivery's signature under
 * the stack's secret authenticates it, checked by the service before anything is read or written.
 */
export const PUSH_WEBHOOK_PATH = '/api/webhooks/git/{orgName}/{projectName}/{stackName}';

export const pushWebhookRoutes: Route[] = [
  {
    method: 'POST',
    path: PUSH_WEBHOOK_PATH,
    group: 'updates',
    async handle(ctx) {
      const outcome = await ctx.services.pushWebhooks.receive(ctx.stackRef(), {
        headers: ctx.request.headers,
        body: await ctx.rawBody(),
        request: requestInfo(ctx.request),
      });
      return jsonResponse(outcome.queued ? 202 : 200, outcome);
    },
  },
];
