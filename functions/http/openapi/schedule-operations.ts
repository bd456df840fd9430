import { driftScheduleSchema, scheduleSchema, ttlScheduleSchema } from '../schemas-deployments.js';
import type { OperationDoc } from './types.js';
import * as wire from './responses.js';

const DEPLOYMENTS = '/api/stacks/{orgName}/{projectName}/{stackName}/deployments';
const SCHEDULES = `${DEPLOYMENTS}/schedules`;
const SCHEDULE = `${SCHEDULES}/{scheduleId}`;
const DRIFT = `${DEPLOYMENTS}/drift/schedules`;
const TTL = `${DEPLOYMENTS}/ttl/schedules`;
const tag = 'Deployments';

/** Scheduled deployments (docs/deployments.md, "Schedules"). */
export const SCHEDULE_OPERATIONS: Record<string, OperationDoc> = {
  [`GET ${SCHEDULES}`]: { summary: "The stack's schedules", tag, auth: 'token', response: wire.jsonObject },
  [`POST ${SCHEDULES}`]: { summary: 'Schedule a deployment: cron (UTC) or once (admin)', tag, auth: 'token', body: scheduleSchema, response: wire.jsonObject },
  [`GET ${SCHEDULE}`]: { summary: 'One schedule', tag, auth: 'token', response: wire.jsonObject },
  [`POST ${SCHEDULE}`]: { summary: 'Replace when and what a schedule runs (admin)', tag, auth: 'token', body: scheduleSchema, response: wire.jsonObject },
  [`DELETE ${SCHEDULE}`]: { summary: 'Remove a schedule (admin)', tag, auth: 'token', status: 204 },
  [`POST ${SCHEDULE}/pause`]: { summary: 'Pause a schedule (admin)', tag, auth: 'token', response: wire.jsonObject },
  [`POST ${SCHEDULE}/resume`]: { summary: 'Resume a schedule (admin)', tag, auth: 'token', response: wire.jsonObject },
  [`POST ${DRIFT}`]: { summary: 'Schedule drift detection, optionally remediating (admin)', tag, auth: 'token', body: driftScheduleSchema, response: wire.jsonObject },
  [`POST ${DRIFT}/{scheduleId}`]: { summary: 'Replace a drift detection schedule (admin)', tag, auth: 'token', body: driftScheduleSchema, response: wire.jsonObject },
  [`POST ${TTL}`]: { summary: 'Destroy the stack at a time, optionally removing it (admin)', tag, auth: 'token', body: ttlScheduleSchema, response: wire.jsonObject },
  [`POST ${TTL}/{scheduleId}`]: { summary: 'Replace a TTL schedule (admin)', tag, auth: 'token', body: ttlScheduleSchema, response: wire.jsonObject },
};
