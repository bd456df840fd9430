/** `policy disable <org-name>/<policy-pack-name>`: stops requiring a pack (one `--version`, or any) for a policy group. */
import type { CommandHandler } from '../types.js';
import { packTarget } from './policy-target.js';

export const policyDisable: CommandHandler = async (ctx, args, opts) => {
  const pack = await packTarget(ctx, args[0]!);
  await pack.policies.disable(pack.org, (opts.policyGroup as string | undefined) ?? '', pack.name, (opts.version as string | undefined) ?? '');
};
