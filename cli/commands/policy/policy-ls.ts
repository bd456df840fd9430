/** `policy ls [org-name]`: the organization's packs and their versions, as `pulumi policy ls` prints them. */
import { table } from '../format.js';
import type { CommandHandler } from '../types.js';
import { orgArgument } from './policy-target.js';

export const policyLs: CommandHandler = async (ctx, args, opts) => {
  const backend = await ctx.backend();
  const packs = await backend.policies().listPacks(await orgArgument(backend, args[0]));
  if (opts.json === true || opts.output === 'json') return ctx.json(packs.map((p) => ({ name: p.name, versions: p.versionTags ?? [] })));
  ctx.out(table(['NAME', 'VERSIONS'], packs.map((p) => [p.name, (p.versionTags ?? []).join(', ')])));
};
