/** `policy enable <org-name>/<policy-pack-name> <latest|version>`: requires a pack version for a policy group's stacks. */
import type { CommandHandler } from '../types.js';
import { readPolicyConfigForService } from './policy-config-file.js';
import { packTarget } from './policy-target.js';

export const policyEnable: CommandHandler = async (ctx, args, opts) => {
  const pack = await packTarget(ctx, args[0]!);
  const versionTag = args[1] === 'latest' ? '' : args[1]!;
  const config = typeof opts.config === 'string' && opts.config !== '' ? readPolicyConfigForService(opts.config) : undefined;
  await pack.policies.enable(pack.org, (opts.policyGroup as string | undefined) ?? '', pack.name, versionTag, config);
};
