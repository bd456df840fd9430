/** The approvals routes of a service, over HTTP (loaded on first use: see lazy-sub-backend.ts). */
import type { ApiClient } from '../api-client/api-client.js';
import type { StackRef } from '../../shared/core/names.js';
import type { PlanView } from '../../shared/core/approvals/plans.js';
import type { ApprovalsBackend, OrgApprovalRule } from './approvals-backend.js';

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
