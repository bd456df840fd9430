import type { OperationDoc } from './types.js';
import * as wire from './responses.js';

const DRIFT = '/api/stacks/{orgName}/{projectName}/{stackName}/drift';
const tag = 'Deployments';

/** Drift runs and drift status (docs/deployments.md, "Drift"). */
export const DRIFT_OPERATIONS: Record<string, OperationDoc> = {
  [`GET ${DRIFT}/runs`]: {
    summary: "The stack's drift runs, newest first, with the resources and properties that drifted",
    tag,
    auth: 'token',
    query: [
      { name: 'page', description: 'The page, from 1', type: 'integer' },
      { name: 'pageSize', description: 'Runs per page (1 to 100, default 10)', type: 'integer' },
    ],
    response: wire.jsonObject,
  },
  [`GET ${DRIFT}/status`]: { summary: 'Whether the newest drift run found drift, and whether a detect-drift run is under way', tag, auth: 'token', response: wire.jsonObject },
};
