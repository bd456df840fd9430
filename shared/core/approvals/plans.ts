/**
 * A plan's lifecycle, as pure functions of its record: read an upload, approve, reject, void, apply, and the views
 * the API answers. Every transition returns the next record (revision + 1) or throws the refusal; storing it is the
 * service's conditional write.
 */
import { randomBytes } from 'node:crypto';
import { InvalidInputError } from '../errors.js';
import type { PlanRecord, PlanStatus, PlanVerdict } from '../../ports/approval-store.js';
import { PlanAuthorError, PlanConflictError } from './refusals.js';

/** What the service reads of an uploaded plan document. */
export interface PlanUpload {
  /** The stack version the plan was made against (`stackyard.stackVersion`; a stack without history: 0). */
  stackVersion: number;
  operations: PlanOperation[];
}

/** One resource's planned steps, as the API shows a plan's operations. */
export interface PlanOperation {
  urn: string;
  type: string;
  ops: string[];
}

/** A verdict as the API shows it (ISO time). */
export interface PlanVerdictView {
  user: string;
  at: string;
  comment?: string;
}

/** The API's PlanView (docs/api.md). */
export interface PlanView {
  id: string;
  author: string;
  created: string;
  stackVersion: number;
  programDigest: string;
  status: PlanStatus;
  requiredApprovals: number;
  approvals: PlanVerdictView[];
  rejection?: PlanVerdictView;
  voidReason?: string;
}

const PLAN_ID = /^[0-9a-z]{9}[0-9a-f]{12}$/;
const DIGEST = /^[0-9a-f]{64}$/;
const MAX_COMMENT = 1000;

/** A new plan id: base-36 epoch ms (9 digits, so ids sort by time) and 12 random hex digits. */
export function newPlanId(now: number): string {
  return `${Math.max(0, Math.floor(now)).toString(36).padStart(9, '0')}${randomBytes(6).toString('hex')}`;
}

/** Whether `id` has the shape of a plan id (anything else is not looked up). */
export function isPlanId(id: string): boolean {
  return PLAN_ID.test(id);
}

/** A program digest as the start request and upload carry it: hex sha256. */
export function validateProgramDigest(value: unknown): string {
  if (typeof value !== 'string' || !DIGEST.test(value)) {
    throw new InvalidInputError('programDigest must be the hex sha256 of the program files (64 lowercase hex digits).');
  }
  return value;
}

/** An optional comment, trimmed and bounded. */
export function validateComment(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' || value.length > MAX_COMMENT) throw new InvalidInputError(`comment must be text of at most ${MAX_COMMENT} characters.`);
  return value;
}

/** The resource type a URN names (`urn:pulumi:<stack>::<project>::<parent$…$type>::<name>`). */
function typeOfUrn(urn: string): string {
  const qualified = urn.split('::')[2] ?? '';
  return qualified.split('$').pop() ?? '';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Reads the parts of a plan file (Pulumi's `DeploymentPlanV1` plus `stackyard`) the approvals need; 400 otherwise. */
export function readPlanUpload(plan: unknown): PlanUpload {
  if (!isObject(plan) || !isObject(plan.manifest)) {
    throw new InvalidInputError('plan must be the plan file as `stackyard preview --save-plan` writes it (an object with a manifest).');
  }
  const origin = plan.stackyard;
  if (!isObject(origin)) {
    throw new InvalidInputError(
      'The plan has no `stackyard` field (the stack version it was made against): make it with `stackyard preview --save-plan <file>`.',
    );
  }
  const version = origin.stackVersion ?? 0;
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 0) {
    throw new InvalidInputError('plan.stackyard.stackVersion must be a whole number.');
  }
  const resourcePlans = plan.resourcePlans ?? {};
  if (!isObject(resourcePlans)) throw new InvalidInputError('plan.resourcePlans must be an object of URNs to resource plans.');
  const operations: PlanOperation[] = [];
  for (const [urn, resource] of Object.entries(resourcePlans)) {
    if (!isObject(resource)) throw new InvalidInputError(`plan.resourcePlans['${urn.slice(0, 200)}'] must be an object.`);
    const steps = resource.steps ?? [];
    if (!Array.isArray(steps) || steps.some((step) => typeof step !== 'string')) {
      throw new InvalidInputError(`plan.resourcePlans['${urn.slice(0, 200)}'].steps must be a list of step names.`);
    }
    const goalType = isObject(resource.goal) && typeof resource.goal.type === 'string' ? resource.goal.type : undefined;
    operations.push({ urn, type: goalType ?? typeOfUrn(urn), ops: steps as string[] });
  }
  return { stackVersion: version, operations };
}

/** How many resources the plan changes (anything but `same`). */
export function changeCount(operations: readonly PlanOperation[]): number {
  return operations.filter((operation) => operation.ops.some((op) => op !== 'same')).length;
}

function next(plan: PlanRecord, changes: Partial<PlanRecord>): PlanRecord {
  return { ...plan, ...changes, revision: plan.revision + 1 };
}

function verdict(user: string, at: number, comment: string | undefined): PlanVerdict {
  return comment === undefined ? { user, at } : { user, at, comment };
}

function requireNotAuthor(plan: PlanRecord, user: string, what: 'approve' | 'reject'): void {
  if (plan.author === user) {
    throw new PlanAuthorError(`'${user}' made plan ${plan.id} and cannot ${what} it: another user with write on the stack must.`);
  }
}

function requirePending(plan: PlanRecord): void {
  if (plan.status !== 'pending') {
    const why = plan.status === 'void' && plan.voidReason ? ` (${plan.voidReason})` : '';
    throw new PlanConflictError('plan_not_pending', `Plan ${plan.id} is ${plan.status}${why}, not pending: only a pending plan can be approved or rejected.`);
  }
}

/** Adds `user`'s approval; at the required count the plan becomes `approved`. */
export function approvePlan(plan: PlanRecord, user: string, now: number, comment?: string): PlanRecord {
  requireNotAuthor(plan, user, 'approve');
  if (plan.approvals.some((approval) => approval.user === user)) {
    throw new PlanConflictError('already_approved', `'${user}' already approved plan ${plan.id}; approvals count distinct users.`);
  }
  requirePending(plan);
  const approvals = [...plan.approvals, verdict(user, now, comment)];
  return next(plan, { approvals, status: approvals.length >= plan.requiredApprovals ? 'approved' : 'pending' });
}

/** Rejects the plan: it can no longer be approved or applied. */
export function rejectPlan(plan: PlanRecord, user: string, now: number, comment?: string): PlanRecord {
  requireNotAuthor(plan, user, 'reject');
  requirePending(plan);
  return next(plan, { status: 'rejected', rejection: verdict(user, now, comment) });
}

/** The plan can no longer start an update, and why. */
export function voidPlan(plan: PlanRecord, reason: string): PlanRecord {
  return next(plan, { status: 'void', voidReason: reason });
}

/** The plan started `updateId`: it starts no other. */
export function applyPlan(plan: PlanRecord, updateId: string): PlanRecord {
  return next(plan, { status: 'applied', appliedUpdate: updateId });
}

/** Why a pending or approved plan no longer fits a stack now at `stackVersion`, or undefined while it does. */
export function staleness(plan: Pick<PlanRecord, 'stackVersion'>, stackVersion: number): string | undefined {
  if (plan.stackVersion === stackVersion) return undefined;
  return `the plan was made at version ${plan.stackVersion}; the stack is at version ${stackVersion}: run preview --save-plan again`;
}

function verdictView(entry: PlanVerdict): PlanVerdictView {
  return { user: entry.user, at: new Date(entry.at).toISOString(), ...(entry.comment !== undefined ? { comment: entry.comment } : {}) };
}

/**
 * The API's view of a plan record. Given the stack's version now, a pending or approved plan the stack has moved on
 * from shows as `void` already (it is stored so at the next approval or start that names it).
 */
export function planView(plan: PlanRecord, stackVersion?: number): PlanView {
  const stale = stackVersion !== undefined && (plan.status === 'pending' || plan.status === 'approved') ? staleness(plan, stackVersion) : undefined;
  if (stale) return planView({ ...plan, status: 'void', voidReason: stale });
  return {
    id: plan.id,
    author: plan.author,
    created: new Date(plan.created).toISOString(),
    stackVersion: plan.stackVersion,
    programDigest: plan.programDigest,
    status: plan.status,
    requiredApprovals: plan.requiredApprovals,
    approvals: plan.approvals.map(verdictView),
    ...(plan.rejection ? { rejection: verdictView(plan.rejection) } : {}),
    ...(plan.voidReason !== undefined ? { voidReason: plan.voidReason } : {}),
  };
}
