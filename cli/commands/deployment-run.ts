/** `deployment run <operation> [url]`: queues a deployment of the stack, as `pulumi deployment run` (remote.go). */
import { DEPLOYMENT_OPERATIONS } from '../../shared/core/deployments/run-queue.js';
import type { RunRequest } from '../backend/deployments-backend.js';
import { UserError } from '../output/errors.js';
import { environmentVariables, list } from './deployment-shared.js';
import { followLog } from './deployment-log.js';
import type { CommandHandler } from './types.js';

export const deploymentRun: CommandHandler = async (ctx, args, opts) => {
  const operation = args[0]!;
  if (!DEPLOYMENT_OPERATIONS.includes(operation as never)) {
    throw new UserError(`"${operation}" is not a valid operation`, `Use one of ${DEPLOYMENT_OPERATIONS.join(', ')}.`);
  }
  const url = args[1];
  const inheritSettings = opts.inheritSettings !== false;
  const branch = opts.gitBranch as string | undefined;
  const commit = opts.gitCommit as string | undefined;
  // Pulumi's validateDeploymentFlags, in its order and words.
  if (!url && !inheritSettings) throw new UserError('the url arg must be specified if not passing --inherit-settings');
  if (branch && commit) throw new UserError('`--git-branch` and `--git-commit` cannot both be specified');
  if (!branch && !commit && !inheritSettings) throw new UserError('either `--git-branch` or `--git-commit` is required if not passing --inherit-settings');

  const git: Record<string, string> = {};
  if (url) git.repoUrl = url;
  if (branch) git.branch = branch;
  if (commit) git.commit = commit;
  if (opts.gitRepoDir) git.repoDir = String(opts.gitRepoDir);
  const operationContext: Record<string, unknown> = {};
  const variables = environmentVariables(list(opts.env), list(opts.envSecret));
  if (variables) operationContext.environmentVariables = variables;
  const preRun = list(opts.preRunCommand);
  if (preRun.length > 0) operationContext.preRunCommands = preRun;
  if (opts.skipInstallDependencies === true) operationContext.options = { skipInstallDependencies: true };
  const request: RunRequest = {
    operation,
    inheritSettings,
    ...(Object.keys(git).length > 0 ? { sourceContext: { git } } : {}),
    ...(Object.keys(operationContext).length > 0 ? { operationContext } : {}),
  };

  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  const deployments = backend.deployments();
  const created = await deployments.run(ref, request);
  ctx.out('Preparing deployment...\n\n');
  if (opts.suppressPermalink !== true) ctx.out(`View Live: ${backend.url.replace(/\/+$/, '')}${created.consoleUrl}`);
  if (opts.suppressStreamLogs !== false) return;
  await followLog(ctx, deployments, ref, created.id, 0);
  const run = await deployments.get(ref, created.id);
  if (run.status === 'failed') throw new UserError('deployment failed', run.failure);
};
