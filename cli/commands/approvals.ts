/**
 * `stack approvals get|set` and `org approvals get|set`: how many other users must approve an update plan before a
 * non-dry-run update of a stack starts (docs/plans.md). The service keeps and enforces them.
 */
import type { ApprovalRequirement, OrgApprovalRule } from '../backend/approvals-backend.js';
import { UserError } from '../output/errors.js';
import { table } from './format.js';
import type { CommandHandler } from './types.js';

/** The most approvals a stack or rule may require (the service's limit too). */
const MAX_APPROVALS = 10;

function requiredArgument(text: string | undefined): number {
  if (text === undefined || !/^[0-9]{1,2}$/.test(text) || Number(text) > MAX_APPROVALS) {
    throw new UserError(`invalid number of approvals '${text ?? ''}': give a whole number from 0 to ${MAX_APPROVALS}`, '0 turns the requirement off.');
  }
  return Number(text);
}

const approvals = (n: number) => `${n} approval${n === 1 ? '' : 's'}`;

function ruleText(rule: { stacks?: string; tag?: string } | undefined): string {
  const parts = [rule?.stacks === undefined ? undefined : `stacks '${rule.stacks}'`, rule?.tag === undefined ? undefined : `tag ${rule.tag}`].filter(Boolean);
  return parts.length ? parts.join(', ') : 'every stack';
}

/** One sentence: what the stack needs and where the number comes from. */
export function requirementText(stack: string, requirement: ApprovalRequirement): string {
  if (requirement.required === 0 || requirement.source === 'none') return `Stack ${stack} needs no approvals before an update.`;
  const from = requirement.source === 'stack' ? 'its own setting' : `organization rule for ${ruleText(requirement.rule)}`;
  return `Stack ${stack} needs ${approvals(requirement.required)} of an update plan before an update (${from}).`;
}

export const stackApprovalsGet: CommandHandler = async (ctx, _args, opts) => {
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  const requirement = await backend.approvals().stackRequirement(ref);
  if (opts.json === true) return ctx.json(requirement);
  ctx.out(requirementText(await ctx.displayName(ref), requirement));
};

export const stackApprovalsSet: CommandHandler = async (ctx, args, opts) => {
  const required = requiredArgument(args[0]);
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  const requirement = await backend.approvals().setStackRequirement(ref, required);
  ctx.out(requirementText(await ctx.displayName(ref), requirement));
};

function rulesText(org: string, rules: readonly OrgApprovalRule[]): string {
  if (rules.length === 0) return `Organization '${org}' has no approval rules.`;
  return table(
    ['REQUIRED', 'STACKS', 'TAG'],
    rules.map((r) => [String(r.required), r.stacks ?? '*', r.tag ?? '']),
  );
}

export const orgApprovalsGet: CommandHandler = async (ctx, args, opts) => {
  const org = args[0]!;
  const rules = await (await ctx.backend()).approvals().orgRules(org);
  if (opts.json === true) return ctx.json({ rules });
  ctx.out(rulesText(org, rules));
};

export const orgApprovalsSet: CommandHandler = async (ctx, args, opts) => {
  const org = args[0]!;
  const required = requiredArgument(args[1]);
  const tag = opts.tag as string | undefined;
  if (tag !== undefined && !/^[^=]+=/.test(tag)) throw new UserError(`invalid --tag '${tag}': give it as name=value`);
  const stacks = opts.stacks as string | undefined;
  const rules = await (await ctx.backend()).approvals().setOrgRule(org, { required, ...(stacks === undefined ? {} : { stacks }), ...(tag === undefined ? {} : { tag }) });
  ctx.out(rulesText(org, rules));
};
