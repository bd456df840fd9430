/** `deployment run <operation> [url]`: queues a deployment of the stack, as `pulumi deployment run` (remote.go). */
import { readFileSync } from 'node:fs';
import { DEPLOYMENT_OPERATIONS } from '../../shared/core/deployments/run-queue.js';
import type { RunRequest } from '../backend/deployments-backend.js';
import { packProgram } from '../deployments/program-archive.js';
import { UserError } from '../output/errors.js';
import { environmentVariables, list } from './deployment-shared.js';
import { followLog } from './deployment-log.js';
import type { CommandHandler } from './types.js';

/** The one `gitAuth` the `--git-auth-*` flags give, in Pulumi's order: access token, SSH key, user name (remote.go). */
function gitAuthOf(opts: Record<string, unknown>): Record<string, unknown> | undefined {
  const text = (name: string) => (typeof opts[name] === 'string' && opts[name] !== '' ? (opts[name] as string) : undefined);
  const secret = (value: string) => ({ secret: value });
  const password = text('gitAuthPassword');
  const keyPath = text('gitAuthSshPrivateKeyPath');
  let key = text('gitAuthSshPrivateKey');
  if (keyPath) {
    try {
      key = readFileSync(keyPath, 'utf8');
    } catch (error) {
      throw new UserError(`reading SSH private key path "${keyPath}": ${(error as Error).message}`);
    }
  }
  const token = text('gitAuthAccessToken');
  if (token) return { accessToken: secret(token) };
  if (key) return { sshAuth: { sshPrivateKey: secret(key), ...(password ? { password: secret(password) } : {}) } };
  const userName = text('gitAuthUsername');
  if (userName) return { basicAuth: { userName: secret(userName), password: secret(password ?? '') } };
  return undefined;
}

export const deploymentRun: CommandHandler = async (ctx, args, opts) => {
  const operation = args[0]!;
  if (!DEPLOYMENT_OPERATIONS.includes(operation as never)) {
    throw new UserError(`"${operation}" is not a valid operation`, `Use one of ${DEPLOYMENT_OPERATIONS.join(', ')}.`);
  }
  const url = args[1];
  const inheritSettings = opts.inheritSettings !== false;
  const branch = opts.gitBranch as string | undefined;
  const commit = opts.gitCommit as string | undefined;
  const sourceDir = opts.source as string | undefined;
  if (sourceDir !== undefined && (url || branch || commit || opts.gitRepoDir || gitAuthOf(opts))) {
    throw new UserError('--source takes the place of a git source', 'Pass either --source <dir> or a repository url with --git-branch / --git-commit / --git-repo-dir / --git-auth-*, not both.');
  }
  // Pulumi's validateDeploymentFlags, in its order and words (a --source needs no git flags).
  if (sourceDir === undefined) {
    if (!url && !inheritSettings) throw new UserError('the url arg must be specified if not passing --inherit-settings');
    if (branch && commit) throw new UserError('`--git-branch` and `--git-commit` cannot both be specified');
    if (!branch && !commit && !inheritSettings) throw new UserError('either `--git-branch` or `--git-commit` is required if not passing --inherit-settings');
  }
  if (opts.gitAuthSshPrivateKey && opts.gitAuthSshPrivateKeyPath) {
    throw new UserError('`--git-auth-ssh-private-key` and `--git-auth-ssh-private-key-path` cannot both be specified');
  }
  // Packed before anything is sent: a bad folder uploads nothing and queues nothing.
  const program = sourceDir === undefined ? undefined : await packProgram(sourceDir);

  const git: Record<string, unknown> = {};
  if (url) git.repoUrl = url;
  if (branch) git.branch = branch;
  if (commit) git.commit = commit;
  if (opts.gitRepoDir) git.repoDir = String(opts.gitRepoDir);
  const gitAuth = gitAuthOf(opts);
  if (gitAuth) git.gitAuth = gitAuth;
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
  if (program) {
    const { id } = await deployments.uploadSource(ref, program);
    ctx.out(`Uploaded ${sourceDir} (${program.files} files, ${program.archive.length} bytes).`);
    request.sourceContext = { archive: { id, sha256: program.sha256 } };
  }
  const created = await deployments.run(ref, request);
  ctx.out('Preparing deployment...\n\n');
  if (opts.suppressPermalink !== true) ctx.out(`View Live: ${backend.url.replace(/\/+$/, '')}${created.consoleUrl}`);
  if (opts.suppressStreamLogs !== false) return;
  await followLog(ctx, deployments, ref, created.id, 0);
  const run = await deployments.get(ref, created.id);
  if (run.status === 'failed') throw new UserError('deployment failed', run.failure);
};
