export { createPolicyService, requiredPolicies, type PolicyService } from './policy-service.js';
export { UPLOAD_TICKET_HEADER, type CreatedPack } from './pack-service.js';
export { DEFAULT_POLICY_GROUP } from './group-records.js';
export type { CreatePolicyPackRequest } from './pack-request.js';
export type { CreatePolicyGroupRequest, PackReference, StackReference, UpdatePolicyGroupRequest } from './group-service.js';
export type { PackVersionView, PolicyGroupSummaryView, PolicyGroupView, PolicyPackList, RequiredPolicyView } from './views.js';
export { recordPolicyResults, type PolicyViolationView } from './policy-results.js';
export { judgeRequiredPacks, type PolicyBypass } from './enforcement-check.js';
