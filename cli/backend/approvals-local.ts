/** The approvals calls of `login --local`, in-process (loaded on first use: see lazy-sub-backend.ts). */
import { UserError } from '../output/errors.js';
import type { ApprovalsBackend } from './approvals-backend.js';

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
