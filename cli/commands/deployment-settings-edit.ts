/**
 * `deployment settings edit` (also `update`, `modify`): changes only what its flags name, as `pulumi deployment
 * settings edit`; the service merges the change into the stored settings and seals `--secret-env` values.
 */
import { UserError } from '../output/errors.js';
import { environmentVariables, list } from './deployment-shared.js';
import type { CommandHandler } from './types.js';

export const deploymentSettingsEdit: CommandHandler = async (ctx, _args, opts) => {
  const branch = opts.branch as string | undefined;
  const commit = opts.commit as string | undefined;
  if (branch && commit) throw new UserError('--branch and --commit cannot both be specified');
  const git: Record<string, unknown> = {};
  if (opts.gitUrl !== undefined) git.repoUrl = String(opts.gitUrl);
  // A branch replaces a pinned commit and the other way round, as the stored source is one or the other.
  if (branch !== undefined) Object.assign(git, { branch, commit: null });
  if (commit !== undefined) Object.assign(git, { commit, branch: null });
  if (opts.folder !== undefined) git.repoDir = String(opts.folder);

  const operationContext: Record<string, unknown> = {};
  const variables: Record<string, unknown> = { ...environmentVariables(list(opts.env), list(opts.secretEnv)) };
  for (const name of list(opts.removeEnv).flatMap((entry) => entry.split(','))) variables[name.trim()] = null;
  if (Object.keys(variables).length > 0) operationContext.environmentVariables = variables;
  const preRun = list(opts.preRunCommand);
  if (preRun.length > 0) operationContext.preRunCommands = preRun;
  const options: Record<string, boolean> = {};
  if (opts.skipInstallDeps !== undefined) options.skipInstallDependencies = opts.skipInstallDeps === true;
  if (opts.deleteAfterDestroy !== undefined) options.deleteAfterDestroy = opts.deleteAfterDestroy === true;
  if (Object.keys(options).length > 0) operationContext.options = options;

  const patch: Record<string, unknown> = {};
  if (Object.keys(git).length > 0) patch.sourceContext = { git };
  if (Object.keys(operationContext).length > 0) patch.operationContext = operationContext;
  if (Object.keys(patch).length === 0) throw new UserError('nothing to change', 'Name what to set with flags, e.g. --git-url, --branch, --env NAME=value (see --help).');

  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  const settings = await backend.deployments().patchSettings(ref, patch);
  if (opts.output === 'json') return ctx.json(settings);
  ctx.out(`Deployment settings of '${await ctx.displayName(ref)}' updated.`);
};
