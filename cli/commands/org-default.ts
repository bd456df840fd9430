/**
 * `org`, `org get-default` and `org set-default`: the organization short stack names belong to on the current
 * backend, as Pulumi's org.go shows and keeps it (backend-config.ts). The local backend has the one organization
 * `organization`, which cannot be changed.
 */
import { setConfiguredDefaultOrg } from '../backend-config.js';
import { UserError } from '../output/errors.js';
import type { CommandHandler } from './types.js';

export const orgSummary: CommandHandler = async (ctx) => {
  const backend = await ctx.backend();
  ctx.out(`Current Backend: ${backend.url}\nDefault Org: ${await backend.defaultOrg()}`);
};

export const orgGetDefault: CommandHandler = async (ctx) => {
  ctx.out(await (await ctx.backend()).defaultOrg());
};

export const orgSetDefault: CommandHandler = async (ctx, args) => {
  const backend = await ctx.backend();
  if (backend.kind === 'local') {
    throw new UserError(
      `unable to set a default organization for backend type: local`,
      'The local backend has the one organization `organization`; log in to a stackyard service to choose among organizations.',
    );
  }
  await setConfiguredDefaultOrg(backend.url, args[0]!, ctx.env);
};
