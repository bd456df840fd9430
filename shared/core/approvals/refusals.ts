/**
 * The refusals of the approvals API, each with a stable `reason` the edge answers beside `code` and `message`
 * (docs/api.md), so a client can tell "wait for approvals" from "make a new plan" without reading prose.
 */
import { ConflictError, ForbiddenError } from '../errors.js';

/** Why a plan request or an update start was refused (409). */
export type PlanConflictReason =
  | 'already_approved'
  | 'plan_not_pending'
  | 'approval_required'
  | 'plan_not_approved'
  | 'plan_stale'
  | 'plan_program_changed'
  | 'plan_already_applied';

/** A 409 of the approvals rules, naming its reason. */
export class PlanConflictError extends ConflictError {
  constructor(
    readonly reason: PlanConflictReason,
    message: string,
  ) {
    super(message, { reason });
  }
}

/** The plan's author asked to approve (or reject) it: approvals must come from someone else. */
export class PlanAuthorError extends ForbiddenError {
  readonly reason = 'plan_author_cannot_approve';
}
