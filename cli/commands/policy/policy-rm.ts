/** `policy rm <org-name>/<policy-pack-name> <all|version>`: deletes a pack's version, or every version of it. */
import type { CommandHandler } from '../types.js';
import { packTarget } from './policy-target.js';

export const policyRm: CommandHandler = async (ctx, args, opts) => {
  const pack = await packTarget(ctx, args[0]!);
  const versionTag = args[1] === 'all' ? undefined : args[1]!;
  // as Pulumi's ConfirmDeletion: the pack's name is what the user types to go on
  await ctx.confirm(opts.yes, `remove '${args[0]}'`, `This will permanently remove the '${args[0]}' policy!`, args[0]);
  await pack.policies.remove(pack.org, pack.name, versionTag);
};
