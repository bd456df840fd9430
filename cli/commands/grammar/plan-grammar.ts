/** `plan` (update plans on the service) and the `approvals` subcommands of `stack` and `org` (docs/plans.md). */
import type { Command } from 'commander';
import { JSON_FLAG, STACK_FLAG, group, leaf } from './tree.js';

const plan = () => import('../plan.js');
const approvals = () => import('../approvals.js');

const MESSAGE_FLAG = { flags: '-m, --message <text>', description: 'a comment recorded with the decision' };

export function registerPlanGrammar(program: Command): void {
  group(program, 'plan', 'Review the update plans uploaded by preview --save-plan, and approve or reject them', (planCmd) => {
    leaf(planCmd, 'ls', "List the stack's update plans, newest first", [STACK_FLAG, JSON_FLAG], async () => (await plan()).planLs);
    leaf(planCmd, 'show <id>', "Show a plan's status, approvals and operations (as a diff against the stack's state)", [STACK_FLAG, JSON_FLAG], async () => (await plan()).planShow);
    leaf(planCmd, 'approve <id>', 'Approve a plan (at once; its author cannot)', [STACK_FLAG, MESSAGE_FLAG], async () => (await plan()).planApprove);
    leaf(planCmd, 'reject <id>', 'Reject a plan (at once): it can no longer be applied', [STACK_FLAG, MESSAGE_FLAG], async () => (await plan()).planReject);
  });
}

/** `stack approvals get|set`. */
export function registerStackApprovalsGrammar(stackCmd: Command): void {
  group(stackCmd, 'approvals', 'How many approvals of an update plan an update of the stack needs', (cmd) => {
    leaf(cmd, 'get', "Show the stack's requirement (its own setting, else the organization's rule)", [STACK_FLAG, JSON_FLAG], async () => (await approvals()).stackApprovalsGet);
    leaf(cmd, 'set <n>', 'Require n approvals (0 to 10; 0 turns the stack\'s own setting off) (stack admins)', [STACK_FLAG], async () => (await approvals()).stackApprovalsSet);
  });
}

/** `org approvals get|set`. */
export function registerOrgApprovalsGrammar(orgCmd: Command): void {
  group(orgCmd, 'approvals', "The organization's approval rules for stacks matching a pattern or a tag", (cmd) => {
    leaf(cmd, 'get <org>', "List the organization's approval rules", [JSON_FLAG], async () => (await approvals()).orgApprovalsGet);
    leaf(cmd, 'set <org> <n>', 'Require n approvals for the stacks a rule matches (0 removes the rule) (organization admins)', [
      { flags: '--stacks <glob>', description: 'stacks whose project/stack matches this glob (default: every stack)' },
      { flags: '--tag <name=value>', description: 'stacks with this tag' },
    ], async () => (await approvals()).orgApprovalsSet);
  });
}
