/**
 * What the bundled `stackyard` CLI runs for each of Pulumi Deployments' operations: the one place the runner (and
 * drift and schedule runs, which queue the same operations) maps an operation to a command line.
 */
import type { DeploymentOperation } from '../../shared/ports/deployment-store.js';

/**
 * The CLI's arguments for `operation` on `stack` (`org/project/stack`). Every command that takes the stack's lease
 * waits for it (`--wait`), so runs of one stack, and a run and a user's update, take turns instead of failing.
 */
export function operationArguments(operation: DeploymentOperation, stack: string): string[] {
  const common = ['--stack', stack, '--non-interactive'];
  switch (operation) {
    case 'preview':
      return ['preview', ...common];
    case 'update':
      return ['up', '--yes', '--wait', ...common];
    case 'remediate-drift':
      // Pulumi Cloud's remediation is `pulumi up --refresh`: the program is the truth, whatever the cloud holds now.
      return ['up', '--refresh', '--yes', '--wait', ...common];
    case 'refresh':
      return ['refresh', '--yes', '--wait', ...common];
    case 'destroy':
      return ['destroy', '--yes', '--wait', ...common];
    case 'detect-drift':
      return ['refresh', '--preview-only', ...common];
  }
}

/** How a failed operation is named in the run's failure: `update failed: …`. */
export function operationNoun(operation: DeploymentOperation): string {
  return operation === 'detect-drift' ? 'drift detection' : operation === 'remediate-drift' ? 'drift remediation' : operation;
}
