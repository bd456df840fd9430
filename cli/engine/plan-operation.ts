/**
 * `preview --save-plan` and `up --plan` around the operation flow: the plan's origin taken before the preview, the
 * plan file written after it, and a plan file read and checked for staleness before an update runs anything.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { planManifest, readPlanFile, writePlanFile } from './plans/plan-file.js';
import { planOrigin, planStaleness, type PlanSubject } from './plans/staleness.js';
import type { DeploymentPlan, PlanOrigin, ResourcePlan } from './plans/plan-types.js';
import { OperationUsageError, type OperationRequest } from './operation-types.js';

async function subjectOf(req: OperationRequest, excluded: readonly string[]): Promise<PlanSubject> {
  const [head, state] = await Promise.all([req.backend.stackHead?.(), req.backend.currentState?.()]);
  return { head, state, programDir: req.program.rootDir, config: req.config, excluded };
}

/** Before a `preview --save-plan`: what the plan is computed from. */
export async function originForSave(req: OperationRequest, file: string): Promise<PlanOrigin> {
  return planOrigin(await subjectOf(req, [file]), req.backend.crypter);
}

/** After the preview: writes the plan file and says how to use it (as `pulumi preview --save-plan`). */
export async function savePlan(req: OperationRequest, file: string, origin: PlanOrigin, resourcePlans: Map<string, ResourcePlan>, note: (text: string) => void): Promise<void> {
  const plan: DeploymentPlan = { manifest: planManifest(new Date(req.now?.() ?? Date.now())), resourcePlans, origin };
  writeFileSync(file, await writePlanFile(plan, req.config, req.backend.crypter));
  note(`Update plan written to '${file}'\nRun \`stackyard up --plan='${file}'\` to constrain the update to the operations planned by this preview\n`);
}

/**
 * Before `up --plan`: reads the plan (ours or one `pulumi` wrote) and refuses one the stack, its state, the program
 * or the configuration has moved on from, unless `--allow-stale-plan`.
 */
export async function loadPlan(req: OperationRequest, file: string): Promise<DeploymentPlan> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new OperationUsageError(`cannot read the plan file ${file}: ${(err as Error).message}`);
  }
  const plan = await readPlanFile(text, req.backend.crypter).catch((err: Error) => {
    throw new OperationUsageError(err.message);
  });
  if (!req.flags.allowStalePlan) {
    const stale = await planStaleness(plan.origin, await subjectOf(req, [file]), req.backend.crypter);
    if (stale) throw new OperationUsageError(`${stale} (or pass --allow-stale-plan to apply it anyway)`);
  }
  return plan;
}
