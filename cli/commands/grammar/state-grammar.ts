/** `state` and its subcommands, in Pulumi's grammar. */
import type { Command } from 'commander';
import { STACK_FLAG, YES_FLAG, group, leaf } from './tree.js';

const state = () => import('../state.js');
const stateResources = () => import('../state-resources.js');

export function registerStateGrammar(program: Command): void {
  group(program, 'state', 'Edit the current stack\'s state', (stateCmd) => {
    leaf(stateCmd, 'delete [urn]', 'Delete a resource from a stack\'s state', [
      STACK_FLAG,
      YES_FLAG,
      { flags: '--force', description: 'delete a protected resource' },
      { flags: '--all', description: 'delete all resources in the stack' },
      { flags: '--target-dependents', description: 'also delete the resources that depend on it' },
    ], async () => (await state()).stateDelete);

    leaf(stateCmd, 'unprotect [urn]', 'Unprotect resources in a stack\'s state', [
      STACK_FLAG,
      YES_FLAG,
      { flags: '--all', description: 'unprotect all resources in the stack' },
    ], async () => (await state()).stateUnprotect);

    leaf(stateCmd, 'protect [urns...]', 'Protect resources in a stack\'s state', [
      STACK_FLAG,
      YES_FLAG,
      { flags: '--all', description: 'protect all resources in the stack' },
    ], async () => (await stateResources()).stateProtect);

    leaf(stateCmd, 'taint [urns...]', 'Taint resources in a stack\'s state: the next `up` replaces them', [STACK_FLAG, YES_FLAG], async () => (await stateResources()).stateTaint);

    leaf(stateCmd, 'untaint [urns...]', 'Untaint resources in a stack\'s state', [
      STACK_FLAG,
      YES_FLAG,
      { flags: '--all', description: 'untaint all resources in the stack' },
    ], async () => (await stateResources()).stateUntaint);

    leaf(stateCmd, 'rename [urn] [new-name]', 'Rename a resource in a stack\'s state', [STACK_FLAG, YES_FLAG], async () => (await stateResources()).stateRename);

    leaf(stateCmd, 'move [urns...]', 'Move resources (with their children) from one stack to another', [
      { flags: '--source <stack>', description: 'the stack to move resources from (default: the selected stack)' },
      { flags: '--dest <stack>', description: 'the stack to move resources to (default: the selected stack)' },
      { flags: '--include-parents', description: 'also move the parents of the resources' },
      { flags: '-y, --yes', description: 'move without asking' },
    ], async () => (await import('../state-move.js')).stateMove).alias('mv');

    leaf(stateCmd, 'repair', 'Clear the pending operations an interrupted update left in the state', [
      STACK_FLAG,
      YES_FLAG,
    ], async () => (await state()).stateRepair);
  });
}
