/**
 * `deployment settings edit` (also `update`, `modify`): changes only what its flags name, as `pulumi deployment
 * settings edit`; the service merges the change into the stored settings and seals `--secret-env` values.
 */
import { UserError } from '../output/errors.js';
import { environmentVariables, list } from './deployment-shared.js';
import type { CommandHandler } from './types.js';

/** Pulumi's `gitHub` settings from `--github-repo`, `--preview-prs`, `--push-to-deploy` and `--path-filter`, as its patch sets them. */
function gitHubPatch(opts: Record<string, unknown>): Record<string, unknown> {
  // As Pulumi's (cobra's MarkFlagsMutuallyExclusive), though here the repository names no source: it is where results go.
  if (opts.githubRepo !== undefined && opts.gitUrl !== undefined) throw new UserError('if any flags in the group [github-repo git-url] are set none of the others can be; [git-url github-repo] were all set');
  const gitHub: Record<string, unknown> = {};
  if (opts.githubRepo !== undefined) gitHub.repository = String(opts.githubRepo);
  if (opts.previewPrs !== undefined) gitHub.previewPullRequests = opts.previewPrs === true;
  if (opts.pushToDeploy !== undefined) gitHub.deployCommits = opts.pushToDeploy === true;
  if (opts.pathFilter !== undefined) gitHub.paths = list(opts.pathFilter).flatMap((entry) => entry.split(',')).map((path) => path.trim()).filter((path) => path !== '');
  return gitHub;
}

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
  const gitHub = gitHubPatch(opts);
  if (Object.keys(gitHub).length > 0) patch.gitHub = gitHub;
  if (Object.keys(git).length > 0) patch.sourceContext = { git };
  if (Object.keys(operationContext).length > 0) patch.operationContext = operationContext;
  if (Object.keys(patch).length === 0) throw new UserError('nothing to change', 'Name what to set with flags, e.g. --git-url, --branch, --env NAME=value, --push-to-deploy (see --help).');

  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  const settings = await backend.deployments().patchSettings(ref, patch);
  if (opts.output === 'json') return ctx.json(settings);
  ctx.out(`Deployment settings of '${await ctx.displayName(ref)}' updated.`);
};
