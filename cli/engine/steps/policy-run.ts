/**
 * The end of a run with policy packs (Pulumi's `deploymentExecutor.Execute` after its steps): when every step and
 * the program succeeded, AnalyzeStack over the final resources; then a run in which any pack reported a mandatory
 * violation fails (a preview reports every violation first, an update has stopped at the first invalid resource).
 */
import type { PolicyPacks } from '../plugins/analyzers/policy-packs.js';
import { PolicyViolationError, stackResources } from './policy-checks.js';
import type { StepExecutor } from './step-executor.js';

/** Runs AnalyzeStack when the run succeeded so far, and fails the run on any mandatory violation. */
export async function finishPolicies(packs: PolicyPacks, ex: StepExecutor, programErrored: boolean, rootUrn: string): Promise<void> {
  if (!ex.failed && !programErrored) {
    try {
      await packs.analyzeStack(stackResources(ex.finalStates(), (urn) => ex.deleteBeforeReplaceOf(urn)), rootUrn);
    } catch (err) {
      ex.fail(undefined, new Error(`failed to analyze resources: ${err instanceof Error ? err.message : String(err)}`));
      return;
    }
  }
  if (packs.mandatoryReported && !ex.failed) ex.fail(undefined, new PolicyViolationError('one or more mandatory policies were violated (see Policies)'));
}
