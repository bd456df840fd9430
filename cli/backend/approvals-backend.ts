/**
 * Approvals of update plans on the service (docs/plans.md, /work/wt/APPROVALS-API.md): how many approvals a stack
 * needs (its own setting or an organization's rule), the plans uploaded by `preview --save-plan`, and the approvals
 * and rejections of other users. Only a service holds them: `login --local` has no other users to approve.
 */
import type { StackRef } from '../../shared/core/names.js';
import type { PlanOperation, PlanView } from '../../shared/core/approvals/plans.js';

/** A stack's effective requirement: its own setting wins over the organization's rules. */
export interface ApprovalRequirement {
  required: number;
  source: 'stack' | 'organization' | 'none';
  /** The organization rule that applies, when `source` is `organization`. */
  rule?: { stacks?: string; tag?: string };
}

/** One organization rule: stacks matching `stacks` (a glob over `project/stack`) and/or tagged `tag` (`k=v`). */
export interface OrgApprovalRule {
  required: number;
  stacks?: string;
  tag?: string;
}

/** A plan and its verdicts as the service answers them: the service's own view types, shared so the two cannot drift. */
export type { PlanOperation, PlanView, PlanVerdictView as PlanDecision } from '../../shared/core/approvals/plans.js';

/** A plan with its file (secrets as the plan's ciphertexts) and its operations: `plan show`, `up --plan <id>`. */
export interface PlanDetails extends PlanView {
  plan: unknown;
  operations: PlanOperation[];
}

/** The approval routes of a service. */
export interface ApprovalsBackend {
  stackRequirement(ref: StackRef): Promise<ApprovalRequirement>;
  setStackRequirement(ref: StackRef, required: number): Promise<ApprovalRequirement>;
  orgRules(org: string): Promise<OrgApprovalRule[]>;
  setOrgRule(org: string, rule: OrgApprovalRule): Promise<OrgApprovalRule[]>;
  uploadPlan(ref: StackRef, plan: unknown, programDigest: string): Promise<PlanView>;
  listPlans(ref: StackRef): Promise<PlanView[]>;
  getPlan(ref: StackRef, id: string): Promise<PlanDetails>;
  decide(ref: StackRef, id: string, decision: 'approve' | 'reject', comment?: string): Promise<PlanView>;
}
