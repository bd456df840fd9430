/**
 * `preview --save-plan` and `up --plan` around the operation flow: the plan's origin taken before the preview, the
 * plan file written (and, on a service, uploaded for approval) after it, and a plan read, from a file or from the
 * service by id, and checked for staleness and approval before an update runs anything.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { planManifest, readPlanFile, writePlanFile } from './plans/plan-file.js';
import { planOrigin, planStaleness, programDigest, type PlanSubject } from './plans/staleness.js';
import type { DeploymentPlan, PlanOrigin, ResourcePlan } from './plans/plan-types.js';
import { approvedPlan } from './plan-approval.js';
import { OperationUsageError, type OperationRequest, type ServicePlanRef, type ServicePlanState } from './operation-types.js';

async function subjectOf(req: OperationRequest, excluded: readonly string[]): Promise<PlanSubject> {
  const [head, state] = await Promise.all([req.backend.stackHead?.(), req.backend.currentState?.()]);
  return { head, state, programDir: req.program.rootDir, config: req.config, excluded };
}

/** The plan file's path from the program's folder, when it lies inside it. */
function insideProgram(req: OperationRequest, file: string): string | undefined {
  const path = relative(req.program.rootDir, resolve(file));
  return path === '' || path.startsWith('..') || isAbsolute(path) ? undefined : path;
}

/** Before a `preview --save-plan`: what the plan is computed from (and, for an upload, where its file lies). */
export async function originForSave(req: OperationRequest, file: string): Promise<PlanOrigin> {
  const origin = await planOrigin(await subjectOf(req, [file]), req.backend.crypter);
  const planFile = req.backend.plans ? insideProgram(req, file) : undefined;
  return planFile === undefined ? origin : { ...origin, planFile };
}

const approvalsText = (n: number) => `${n} approval${n === 1 ? '' : 's'}`;

/** What `preview --save-plan` says of a plan it uploaded. */
function uploadedText(state: ServicePlanState): string {
  if (state.status === 'approved') return `Plan ${state.id} uploaded: approved (the stack needs no approvals)`;
  return `Plan ${state.id} uploaded: needs ${approvalsText(state.requiredApprovals)} (stackyard plan approve ${state.id})`;
}

/**
 * After the preview: writes the plan file and says how to use it (as `pulumi preview --save-plan`); on a service,
 * uploads it with the digest of its program and records the id the service gave it in the file.
 */
export async function savePlan(req: OperationRequest, file: string, origin: PlanOrigin, resourcePlans: Map<string, ResourcePlan>, note: (text: string) => void): Promise<void> {
  const plan: DeploymentPlan = { manifest: planManifest(new Date(req.now?.() ?? Date.now())), resourcePlans, origin };
  const text = await writePlanFile(plan, req.config, req.backend.crypter);
  writeFileSync(file, text);
  note(`Update plan written to '${file}'\nRun \`stackyard up --plan='${file}'\` to constrain the update to the operations planned by this preview\n`);
  if (!req.backend.plans) return;
  const doc = JSON.parse(text) as { stackyard?: PlanOrigin };
  const state = await req.backend.plans.upload(doc, programDigest(req.program.rootDir, [file]));
  writeFileSync(file, `${JSON.stringify({ ...doc, stackyard: { ...doc.stackyard, planId: state.id } }, null, 4)}\n`);
  note(`${uploadedText(state)}\n`);
}

/** A plan to apply, and the plan on the service the update's start names (when there is one). */
export interface LoadedPlan {
  plan: DeploymentPlan;
  service?: ServicePlanRef;
}

/** The files the program's digests leave out: the plan file given, and the one the plan was saved to. */
function planFiles(req: OperationRequest, origin: PlanOrigin | undefined, file: string | undefined): string[] {
  const files = file === undefined ? [] : [resolve(file)];
  if (origin?.planFile !== undefined) files.push(resolve(req.program.rootDir, origin.planFile));
  return files;
}

/**
 * Before `up --plan`: reads the plan — a file (ours or one `pulumi` wrote) or, given an id that is no file, the
 * service's plan — waits for or refuses a plan on the service that is not approved, and refuses one the stack, its
 * state, the program or the configuration has moved on from, unless `--allow-stale-plan`.
 */
export async function loadPlan(req: OperationRequest, given: string, note: (text: string) => void): Promise<LoadedPlan> {
  const plans = req.backend.plans;
  const byId = plans !== undefined && !existsSync(given);
  const approval = { wait: req.flags.waitForApproval, note, signal: req.signal, now: req.now };
  let text: string;
  if (byId) {
    text = JSON.stringify((await approvedPlan(plans, given, approval)).plan);
  } else {
    try {
      text = readFileSync(given, 'utf8');
    } catch (err) {
      throw new OperationUsageError(`cannot read the plan file ${given}: ${(err as Error).message}`);
    }
  }
  const plan = await readPlanFile(text, req.backend.crypter).catch((err: Error) => {
    throw new OperationUsageError(err.message);
  });
  const planId = byId ? given : plan.origin?.planId;
  if (!byId && planId !== undefined && plans) await approvedPlan(plans, planId, approval);
  const excluded = planFiles(req, plan.origin, byId ? undefined : given);
  if (!req.flags.allowStalePlan) {
    const stale = await planStaleness(plan.origin, await subjectOf(req, excluded), req.backend.crypter);
    if (stale) throw new OperationUsageError(`${stale} (or pass --allow-stale-plan to apply it anyway)`);
  }
  if (planId === undefined || !plans) return { plan };
  return { plan, service: { id: planId, programDigest: programDigest(req.program.rootDir, excluded) } };
}
