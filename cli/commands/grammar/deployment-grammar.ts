/**
 * `deployment`: a stack's deployment settings and runs, in `pulumi deployment`'s grammar (pkg/cmd/pulumi/deployment:
 * run, list, get, cancel, log, settings get|edit|destroy); docs/deployments.md.
 */
import type { Command } from 'commander';
import { boolValue } from '../engine-flags.js';
import { positiveInteger, type FlagSpec } from '../pulumi-flags.js';
import { STACK_FLAG, YES_FLAG, group, integer, leaf } from './tree.js';

const commands = {
  run: () => import('../deployment-run.js'),
  list: () => import('../deployment-list.js'),
  get: () => import('../deployment-get.js'),
  cancel: () => import('../deployment-cancel.js'),
  log: () => import('../deployment-log.js'),
  settingsGet: () => import('../deployment-settings-get.js'),
  settingsEdit: () => import('../deployment-settings-edit.js'),
  settingsDestroy: () => import('../deployment-settings-destroy.js'),
  webhook: () => import('../deployment-webhook.js'),
};

const OUTPUT_FLAG: FlagSpec = { flags: '-o, --output <format>', description: 'output format: default or json' };
const NO_EXECUTOR = 'stackyard runs deployments in serve\'s runner processes, not in executor images or agent pools';

/** `pulumi deployment run`'s remote flags (remote.go, ApplyFlagsForDeploymentCommand). */
const RUN_FLAGS: FlagSpec[] = [
  STACK_FLAG,
  { flags: '--inherit-settings [bool]', description: 'inherit deployment settings from the current stack (default: true)', parse: boolValue },
  { flags: '--suppress-stream-logs [bool]', description: 'suppress log streaming of the deployment job (default: true)', parse: boolValue },
  { flags: '--suppress-permalink [bool]', description: 'suppress display of the deployment permalink', parse: boolValue },
  { flags: '--env <NAME=value>', description: 'environment variables to use in the remote operation of the form NAME=value', repeatable: true },
  { flags: '--env-secret <NAME=value>', description: 'environment variables with secret values to use in the remote operation of the form NAME=value', repeatable: true },
  { flags: '--pre-run-command <command>', description: 'commands to run before the remote operation', repeatable: true },
  { flags: '--skip-install-dependencies', description: 'whether to skip the default dependency installation step' },
  { flags: '--git-branch <branch>', description: 'git branch to deploy; this is mutually exclusive with --git-commit' },
  { flags: '--git-commit <sha>', description: 'git commit hash of the commit to deploy; this is mutually exclusive with --git-branch' },
  { flags: '--git-repo-dir <dir>', description: 'the directory to work from in the project\'s source repository where Pulumi.yaml is located' },
  { flags: '--source <dir>', description: 'upload this program folder (its Pulumi.yaml, without node_modules, .git and what .gitignore ignores) as the run\'s source instead of a git repository (stackyard\'s own)' },
  { flags: '--git-auth-access-token <token>', description: 'git personal access token' },
  { flags: '--git-auth-ssh-private-key <key>', description: 'git SSH private key' },
  { flags: '--git-auth-ssh-private-key-path <path>', description: 'git SSH private key path' },
  { flags: '--git-auth-password <password>', description: 'git password; for use with username or with an SSH private key' },
  { flags: '--git-auth-username <name>', description: 'git username' },
  { flags: '--executor-image <image>', description: 'the image to use for the remote executor', refused: NO_EXECUTOR },
  { flags: '--executor-image-username <name>', description: 'the username for the credentials with access to the executor image', refused: NO_EXECUTOR },
  { flags: '--executor-image-password <password>', description: 'the password for the credentials with access to the executor image', refused: NO_EXECUTOR },
  { flags: '--agent-pool-id <id>', description: 'the agent pool to use to run the deployment job', refused: NO_EXECUTOR },
];

/** `pulumi deployment settings edit`'s flags that stackyard applies; the rest are refused with why. */
const EDIT_FLAGS: FlagSpec[] = [
  STACK_FLAG,
  OUTPUT_FLAG,
  { flags: '--git-url <url>', description: 'the git repository URL (http or https)' },
  { flags: '--branch <branch>', description: 'source branch' },
  { flags: '--commit <sha>', description: 'source commit hash' },
  { flags: '--folder <path>', description: 'path to the Pulumi.yaml folder within the source repo' },
  { flags: '--pre-run-command <command>', description: 'a command to run before the operation (repeatable; replaces the stored list)', repeatable: true },
  { flags: '--env <NAME=value>', description: 'an environment variable (repeatable)', repeatable: true },
  { flags: '--secret-env <NAME=value>', description: 'a secret environment variable, sealed under the stack\'s key (repeatable)', repeatable: true },
  { flags: '--remove-env <names>', description: 'environment variables to remove (comma-separated, repeatable)', repeatable: true },
  { flags: '--skip-install-deps [bool]', description: 'skip the dependency installation step', parse: boolValue },
  { flags: '--github-repo <repo>', description: 'GitHub: organization/repository (gitHub.repository: where pull request results are posted; not a source, set --git-url too)' },
  { flags: '--preview-prs [bool]', description: 'push webhooks: run previews for pull requests (default on)', parse: boolValue },
  { flags: '--push-to-deploy [bool]', description: 'push webhooks: run updates for pushed commits (default on)', parse: boolValue },
  { flags: '--path-filter <paths>', description: 'push webhooks: replace the path filter list (repeatable, comma-separated)', repeatable: true },
  { flags: '--pr-template', description: 'GitHub: use this stack as a template for PR review stacks', refused: 'review stacks are not built yet (docs/deployments.md)' },
  ...['--runner-pool <id>', '--executor-image <image>', '--executor-root-path <path>'].map((flags) => ({ flags, description: 'executor', refused: NO_EXECUTOR })),
  { flags: '--shell <shell>', description: 'shell to use for pre-run commands', refused: 'pre-run commands run with sh -c' },
  { flags: '--skip-intermediate-deployments', description: 'skip intermediate deployments', refused: 'every queued run runs' },
  { flags: '--delete-after-destroy [bool]', description: 'delete the stack after a destroy run destroyed its resources', parse: boolValue },
  ...['--oidc-aws-role-arn <arn>', '--oidc-azure-client-id <id>', '--oidc-gcp-project-number <n>'].map((flags) => ({
    flags,
    description: 'cloud OIDC',
    refused: 'runs on serve use the serve process\'s own cloud credentials (docs/deployments.md)',
  })),
];

export function registerDeploymentGrammar(program: Command): void {
  group(program, 'deployment', "Manage stack deployments run by the service's runners (docs/deployments.md)", (deployment) => {
    leaf(deployment, 'run <operation> [url]', 'Launch a deployment job (update, preview, destroy, refresh, detect-drift or remediate-drift)', RUN_FLAGS, async () => (await commands.run()).deploymentRun);
    leaf(deployment, 'list', 'List deployments for a stack', [
      STACK_FLAG,
      OUTPUT_FLAG,
      { flags: '--count <n>', description: 'the number of deployments to show', parse: positiveInteger },
      { flags: '--all', description: 'show every deployment' },
    ], async () => (await commands.list()).deploymentList).alias('ls');
    leaf(deployment, 'get <deployment-id>', 'Show a deployment (by id or per-stack version) as JSON', [STACK_FLAG], async () => (await commands.get()).deploymentGet);
    leaf(deployment, 'cancel <deployment-id>', 'Cancel a queued or in-progress deployment', [STACK_FLAG, YES_FLAG, OUTPUT_FLAG], async () => (await commands.cancel()).deploymentCancel);
    leaf(deployment, 'log <deployment-version>', 'Retrieve execution logs for a deployment (by per-stack version or id)', [
      STACK_FLAG,
      OUTPUT_FLAG,
      { flags: '--offset <n>', description: 'the line to start from (0 to leave unset)', parse: integer },
      { flags: '--count <n>', description: 'the number of log lines to fetch', parse: positiveInteger },
      { flags: '--all', description: 'fetch every available log line' },
      { flags: '-f, --follow', description: 'print lines as they come until the deployment ends (stackyard\'s own)' },
      { flags: '--job <n>', description: 'the job index (stackyard runs have one job)', parse: integer },
      { flags: '--step <n>', description: 'the step index (stackyard runs have no steps)', parse: integer },
    ], async () => (await commands.log()).deploymentLog).alias('logs');
    group(deployment, 'settings', 'Manage stack deployment settings', (settings) => {
      leaf(settings, 'get', 'Retrieve the deployment settings for a stack (JSON; secrets as ciphertext)', [STACK_FLAG, OUTPUT_FLAG], async () => (await commands.settingsGet()).deploymentSettingsGet);
      leaf(settings, 'edit', 'Create or update deployment settings for a stack', EDIT_FLAGS, async () => (await commands.settingsEdit()).deploymentSettingsEdit).aliases(['update', 'modify']);
      leaf(settings, 'destroy', "Delete all the stack's deployment settings", [STACK_FLAG, YES_FLAG], async () => (await commands.settingsDestroy()).deploymentSettingsDestroy).aliases(['down', 'dn', 'clear']);
      group(settings, 'webhook', "The stack's push webhook: its URL and secret (stackyard's own; docs/deployments.md)", (webhook) => {
        leaf(webhook, 'show', 'Show the webhook URL and whether a secret is set (never the secret)', [STACK_FLAG, OUTPUT_FLAG], async () => (await commands.webhook()).deploymentWebhookShow);
        leaf(webhook, 'set', 'Set or rotate the secret: made here and printed once, or read from stdin', [
          STACK_FLAG,
          OUTPUT_FLAG,
          { flags: '--secret-stdin', description: 'read the secret from standard input instead of making one (never pass it as an argument)' },
        ], async () => (await commands.webhook()).deploymentWebhookSet).alias('rotate');
        leaf(webhook, 'remove', 'Remove the secret: every delivery is refused', [STACK_FLAG, YES_FLAG], async () => (await commands.webhook()).deploymentWebhookRemove).alias('rm');
        leaf(webhook, 'post-results', "Post pull request previews' results back to GitHub or GitLab (or stop with --off)", [
          STACK_FLAG,
          { flags: '--provider <host>', description: 'github or gitlab' },
          { flags: '--repository <name>', description: 'GitHub: owner/repo (default: gitHub.repository); GitLab: group/project or the project id' },
          { flags: '--api-url <url>', description: 'the API base URL (default https://api.github.com or https://gitlab.com/api/v4)' },
          { flags: '--token-stdin', description: "read the git host's API token from standard input (sealed by the service; never pass it as an argument)" },
          { flags: '--off', description: 'stop posting results' },
        ], async () => (await commands.webhook()).deploymentWebhookPostResults);
      });
    });
  });
}
