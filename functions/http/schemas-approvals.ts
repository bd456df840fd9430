import * as z from 'zod/mini';

/** Request bodies of the approvals routes (routes/approvals.ts); ranges and formats are checked by the core. */

/** `PUT …/approvals` of a stack. */
export const stackApprovalsSchema = z.object({ required: z.number().check(z.int()) });

/** `PUT /api/orgs/{org}/approvals`: one rule, keyed by (stacks, tag). */
export const approvalRuleSchema = z.object({
  required: z.number().check(z.int()),
  stacks: z.nullish(z.string()),
  tag: z.nullish(z.string()),
});

/** `POST …/plans`: the plan file as written by `preview --save-plan`, and the program's digest in plaintext hex. */
export const submitPlanSchema = z.object({
  plan: z.record(z.string(), z.unknown()),
  programDigest: z.string(),
});

/** `POST …/plans/{id}/approve|reject`. */
export const planVerdictSchema = z.optional(z.object({ comment: z.nullish(z.string()) }));
