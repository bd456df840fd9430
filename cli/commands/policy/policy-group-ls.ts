/** `policy group ls [org-name]`: the organization's policy groups, as `pulumi policy group ls` prints them. */
import { table } from '../format.js';
import type { CommandHandler } from '../types.js';
import { orgArgument } from './policy-target.js';

export const policyGroupLs: CommandHandler = async (ctx, args, opts) => {
  const backend = await ctx.backend();
  const groups = await backend.policies().listGroups(await orgArgument(backend, args[0]));
  if (opts.json === true || opts.output === 'json') {
    return ctx.json(groups.map((g) => ({ name: g.name, default: g.isOrgDefault, numPolicyPacks: g.numEnabledPolicyPacks, numStacks: g.numStacks })));
  }
  const rows = groups.map((g) => [g.name, g.isOrgDefault ? 'Y' : 'N', String(g.numEnabledPolicyPacks), String(g.numStacks)]);
  ctx.out(table(['NAME', 'DEFAULT', 'ENABLED POLICY PACKS', 'STACKS'], rows));
};
