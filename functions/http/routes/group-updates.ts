import { routesOf, type Route } from '../router.js';
import { approvalRoutes } from './approvals.js';
import { deploymentRoutes } from './deployments.js';
import { deploymentRunnerRoutes } from './deployment-runner.js';
import { driftRoutes } from './drift.js';
import { scheduleRoutes } from './schedules.js';
import { pushWebhookRoutes } from './push-webhooks.js';
import { hookApiRoutes } from './hooks.js';
import { updateRoutes } from './updates.js';

/**
 * The updates function's routes: an update's lifecycle, its checkpoints, journal and events, approvals (whose rules
 * `start` applies); and webhooks, whose ping
 * and redelivery may invoke a Lambda function as the gates at `start` do, so only this function bundles the Lambda client.
 */
export const UPDATES_GROUP_ROUTES: readonly Route[] = routesOf('updates', [
  ...updateRoutes,
  ...hookApiRoutes,
  ...deploymentRoutes,
  ...deploymentRunnerRoutes,
  ...driftRoutes,
  ...approvalRoutes,
  ...scheduleRoutes,
  ...pushWebhookRoutes,
]);
