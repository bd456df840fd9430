import type { OutboxEvent } from './hook-store.js';

/** Where a plan is in its life: waiting for approvals, approved, refused, started an update, or made useless. */
export type PlanStatus = 'pending' | 'approved' | 'rejected' | 'applied' | 'void';

/** One user's approval (or rejection) of a plan. */
export interface PlanVerdict {
  user: string;
  /** Epoch milliseconds. */
  at: number;
  comment?: string;
}

/**
 * A plan uploaded for approval. The plan document itself (Pulumi's plan file, secrets as its ciphertexts) is an
 * object of the checkpoint store (`plans/<id>.json` of the stack); the record holds what its lifecycle needs.
 */
export interface PlanRecord {
  /** Sorts by upload time (base-36 epoch ms, then random hex). */
  id: string;
  stackId: string;
  org: string;
  author: string;
  /** Epoch milliseconds. */
  created: number;
  /** The stack version the plan was computed against (`stackyard.stackVersion`). */
  stackVersion: number;
  /** Hex sha256 of the program files the plan was made from. */
  programDigest: string;
  status: PlanStatus;
  /** How many resources the plan changes (steps other than `same`). */
  changes: number;
  /** The approvals the stack required when the plan was uploaded. */
  requiredApprovals: number;
  /** Distinct users, in the order they approved. */
  approvals: PlanVerdict[];
  rejection?: PlanVerdict;
  voidReason?: string;
  /** The update an `applied` plan started. */
  appliedUpdate?: string;
  /** 1 on create, +1 on every write: the condition of the next. */
  revision: number;
}

/** An organization's rule: stacks matching `stacks` (a glob over `project/stack`) and `tag` (`k=v`) need `required`. */
export interface ApprovalRule {
  required: number;
  stacks?: string;
  tag?: string;
}

/**
 * Approval requirements (a stack's own, an organization's rules) and the plans uploaded for approval (items of the
 * Stackyard table in AWS, lock-protected files locally). Design: docs/plans.md.
 *
 * Guarantees:
 * - A stack's requirement and an organization's rule are single items: `put…` replaces, `delete…` of a missing one
 *   is no error. Rules are keyed by (stacks, tag), so a put with the same pair replaces that rule.
 * - `createPlan` is create-if-absent by (stack, id): a second create of one id is `ConflictError` and changes nothing.
 * - `updatePlan` applies only at the revision the caller read (`ConflictError` otherwise, nothing changes): of two
 *   writers that read one revision — two approvals of the last slot, two starts applying one plan — exactly one wins.
 * - `events` (hook outbox events) are written in the same atomic write as the plan: an event exists if and only if
 *   its change happened (HookStore's outbox guarantee).
 */
export interface ApprovalStore {
  /** The stack's own requirement, `undefined` when it has none. */
  getStackRequirement(stackId: string): Promise<number | undefined>;
  putStackRequirement(stackId: string, required: number): Promise<void>;
  deleteStackRequirement(stackId: string): Promise<void>;

  /** The organization's rules, ordered by (stacks, tag). */
  listRules(org: string): Promise<ApprovalRule[]>;
  putRule(org: string, rule: ApprovalRule): Promise<void>;
  deleteRule(org: string, key: Pick<ApprovalRule, 'stacks' | 'tag'>): Promise<void>;

  createPlan(plan: PlanRecord, events?: readonly OutboxEvent[]): Promise<void>;
  /** `undefined` when the stack has no plan with that id. */
  getPlan(stackId: string, id: string): Promise<PlanRecord | undefined>;
  /** A stack's plans, newest first. */
  listPlans(stackId: string, limit: number): Promise<PlanRecord[]>;
  updatePlan(plan: PlanRecord, expectedRevision: number, events?: readonly OutboxEvent[]): Promise<PlanRecord>;
}
