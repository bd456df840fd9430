/**
 * Approvals of update plans on the service (docs/plans.md, /work/wt/APPROVALS-API.md): how many approvals a stack
 * needs (its own setting or an organization's rule), the plans uploaded by `preview --save-plan`, and the approvals
 * and rejections of other users. Only a service holds them: `login --local` has no other users to approve.
 */
import type { ApiClient } from '../api-client/api-client.js';
import type { StackRef } from '../../shared/core/names.js';
import type { PlanOperation, PlanView } from '../../shared/core/approvals/plans.js';
import { UserError } from '../output/errors.js';

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

const stackPath = (ref: StackRef) => `/api/stacks/${ref.org}/${ref.project}/${ref.stack}`;
const planPath = (ref: StackRef, id: string) => `${stackPath(ref)}/plans/${encodeURIComponent(id)}`;

/** The routes over HTTP. */
export function httpApprovalsBackend(client: ApiClient): ApprovalsBackend {
  return {
    stackRequirement: (ref) => client.request({ method: 'GET', path: `${stackPath(ref)}/approvals`, operation: 'get approvals' }),
    setStackRequirement: (ref, required) =>
      client.request({ method: 'PUT', path: `${stackPath(ref)}/approvals`, body: { required }, operation: 'set approvals' }),
    async orgRules(org) {
      const answer = await client.request<{ rules?: OrgApprovalRule[] }>({ method: 'GET', path: `/api/orgs/${encodeURIComponent(org)}/approvals`, operation: 'get approvals' });
      return answer?.rules ?? [];
    },
    async setOrgRule(org, rule) {
      const answer = await client.request<{ rules?: OrgApprovalRule[] }>({ method: 'PUT', path: `/api/orgs/${encodeURIComponent(org)}/approvals`, body: rule, operation: 'set approvals' });
      return answer?.rules ?? [];
    },
    uploadPlan: (ref, plan, programDigest) =>
      client.request({ method: 'POST', path: `${stackPath(ref)}/plans`, body: { plan, programDigest }, gzip: true, operation: 'upload plan' }),
    async listPlans(ref) {
      const answer = await client.request<{ plans?: PlanView[] }>({ method: 'GET', path: `${stackPath(ref)}/plans`, operation: 'list plans' });
      return answer?.plans ?? [];
    },
    getPlan: (ref, id) => client.request({ method: 'GET', path: planPath(ref, id), operation: 'get plan' }),
    decide: (ref, id, decision, comment) =>
      client.request({ method: 'POST', path: `${planPath(ref, id)}/${decision}`, body: comment === undefined ? {} : { comment }, operation: `${decision} plan` }),
  };
}

/** `login --local`: every call says approvals need a service. */
export function localApprovalsBackend(): ApprovalsBackend {
  const refuse = (): never => {
    throw new UserError(
      'approvals of update plans need a Stackyard service: the local backend has no other users to approve',
      'Log in to a service (`stackyard login <url>`, or `stackyard serve` for one on this machine).',
    );
  };
  return {
    stackRequirement: async () => refuse(),
    setStackRequirement: async () => refuse(),
    orgRules: async () => refuse(),
    setOrgRule: async () => refuse(),
    uploadPlan: async () => refuse(),
    listPlans: async () => refuse(),
    getPlan: async () => refuse(),
    decide: async () => refuse(),
  };
}
