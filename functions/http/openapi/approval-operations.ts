import { approvalRuleSchema, planVerdictSchema, stackApprovalsSchema, submitPlanSchema } from '../schemas-approvals.js';
import type { OperationDoc } from './types.js';
import * as wire from './responses.js';

const STACK = '/api/stacks/{orgName}/{projectName}/{stackName}';
const PLAN = `${STACK}/plans/{planId}`;
const tag = 'Approvals';

/** Approvals: requirements, organization rules, plans and their verdicts (docs/plans.md). */
export const APPROVAL_OPERATIONS: Record<string, OperationDoc> = {
  [`GET ${STACK}/approvals`]: { summary: "The stack's effective approval requirement", tag, auth: 'token', response: wire.jsonObject },
  [`PUT ${STACK}/approvals`]: { summary: "Set the stack's own requirement (admin; 0 removes it)", tag, auth: 'token', body: stackApprovalsSchema, response: wire.jsonObject },
  ['GET /api/orgs/{orgName}/approvals']: { summary: "The organization's approval rules", tag, auth: 'token', response: wire.jsonObject },
  ['PUT /api/orgs/{orgName}/approvals']: { summary: 'Upsert a rule by (stacks, tag) (admin; required 0 removes it)', tag, auth: 'token', body: approvalRuleSchema, response: wire.jsonObject },
  [`POST ${STACK}/plans`]: { summary: 'Upload a plan for approval', tag, auth: 'token', body: submitPlanSchema, status: 201, response: wire.jsonObject },
  [`GET ${STACK}/plans`]: { summary: "The stack's plans, newest first", tag, auth: 'token', response: wire.jsonObject },
  [`GET ${PLAN}`]: { summary: 'One plan with its document and operations', tag, auth: 'token', response: wire.jsonObject },
  [`POST ${PLAN}/approve`]: { summary: "Approve someone else's plan", tag, auth: 'token', body: planVerdictSchema, response: wire.jsonObject },
  [`POST ${PLAN}/reject`]: { summary: "Reject someone else's plan", tag, auth: 'token', body: planVerdictSchema, response: wire.jsonObject },
};
