export { createApprovalService, type ApprovalService, type PlanDetail, type PlanSubmission } from './approval-service.js';
export type { PlanOperation, PlanVerdictView, PlanView } from './plans.js';
export type { EffectiveRequirement } from './rules.js';
export type { StartPlanRef } from './start-decision.js';
export { PlanAuthorError, PlanConflictError, type PlanConflictReason } from './refusals.js';
