/**
 * A refresh or destroy that runs the program (`--run-program`: Pulumi's `RefreshV2` and `DestroyV2`, the refresh and
 * destroy modes of `step_generator.go`). Providers and components register as in an update, so providers get the
 * configuration the program gives them now; a custom resource takes the mode's own step, decided here:
 * - refresh: one in the state is read back through the program's provider (the state takes the provider's inputs and
 *   outputs, never the program's inputs), and the program gets what was read; one not in the state is not created;
 * - destroy: one in the state is kept as it is until the deletes at the end; one not in the state is not created.
 * Whatever depends on a resource not created is left alone too (`RunLedger.skipped`). After the program, a refresh
 * reads back the resources it did not register, and a destroy deletes everything (`StepExecutor.afterProgram`).
 */
import type { ResourceState } from '../state/deployment.js';
import type { StepTarget, StepApplier } from './apply-steps.js';
import { refreshResource } from './refresh-steps.js';
import type { RunLedger } from './run-ledger.js';
import { proposedState } from './step-generator.js';
import type { RegisterResult, StepContext } from './step-types.js';

/** A resource the mode does not create (Pulumi's skipped create): recorded nowhere, and its dependents are skipped. */
function skippedCreate(ledger: RunLedger, urn: string): RegisterResult {
  ledger.skipped.add(urn);
  return { urn, id: '', outputs: {}, result: 'skip' };
}

/** Refresh mode: reads the resource back through the program's provider, or skips its creation. */
export async function refreshRegistration(ctx: StepContext, ledger: RunLedger, target: StepTarget, old: ResourceState | undefined): Promise<RegisterResult> {
  const { goal, urn, ref, provider } = target;
  if (!old) return skippedCreate(ledger, urn);
  const refreshed = await refreshResource(ctx, old, provider, (read) => {
    // the program's view of the resource (parent, dependencies, options) with what the provider read
    const state = proposedState(goal, urn, {
      id: read.id,
      inputs: read.inputs,
      outputs: read.outputs,
      provider: ref,
      created: old.created,
      modified: read.changed ? new Date().toISOString() : old.modified,
      initErrors: old.initErrors,
    });
    ledger.record(urn, state, old);
    return state;
  });
  // gone: as Pulumi, the registration then goes on as one of a resource not in the state
  if (!refreshed) return skippedCreate(ledger, urn);
  return { urn, id: refreshed.id ?? '', outputs: refreshed.outputs ?? {}, result: 'success' };
}

/** Destroy mode: keeps the resource as the state has it (inputs included) until the deletes, or skips its creation. */
export function destroyRegistration(applier: StepApplier, ledger: RunLedger, target: StepTarget, old: ResourceState | undefined): RegisterResult {
  if (!old) return skippedCreate(ledger, target.urn);
  return applier.same(target, old.inputs ?? {}, old);
}
