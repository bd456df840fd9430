import { Command, InvalidArgumentError, Option } from 'commander';
import type { ServeFlags } from './serve-run.js';

function portNumber(value: string): number {
  const port = Number(value);
  if (!/^[0-9]{1,5}$/.test(value) || port > 65_535) throw new InvalidArgumentError('expected a port number (0-65535).');
  return port;
}

function runnerCount(value: string): number {
  if (!/^[0-9]{1,2}$/.test(value) || Number(value) > 32) throw new InvalidArgumentError('expected a number of runners from 0 to 32.');
  return Number(value);
}

/**
 * `stackyard serve`: the Stackyard API over HTTP on this machine. Only its grammar is here; what it runs
 * (serve-run.ts) and the server code are loaded when it runs.
 */
export function serveCommand(): Command {
  return new Command('serve')
    .description('serve the Pulumi service API (the same handlers as a deployment) on local or AWS storage')
    .option('--port <port>', 'port to listen on; 0 picks a free one (default: 8080)', portNumber)
    .option('--host <host>', 'address to listen on (default: 127.0.0.1)')
    .option('--data-dir <dir>', 'local storage folder (default: $STACKYARD_HOME/serve, STACKYARD_HOME defaults to ~/.stackyard)')
    .option('--access-log', 'write one JSON access-log line per request on stdout (default: off)')
    .option('--print-login', 'make the serve running with this --data-dir print its log-in lines again (as SIGUSR1 does), then exit')
    .option('--runners <n>', 'worker processes running queued deployment runs; 0 runs none (default: 1; docs/deployments.md)', runnerCount)
    .addOption(new Option('--runner-worker', 'run as one of serve\'s runner workers (serve starts them)').hideHelp())
    .addHelpText(
      'after',
      '\nEnvironment:\n' +
        '  STACKYARD_STORAGE            local (default) or aws\n' +
        '  STACKYARD_TABLE, STACKYARD_BUCKET, STACKYARD_KMS_KEY_ID   the deployment\'s storage (aws)\n' +
        '  AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL_KMS   SDK endpoint overrides (aws)\n' +
        '  STACKYARD_ADMIN_TOKEN        make this token an administrator\'s (re-applied at every start)\n' +
        '  STACKYARD_ADMIN_USER         that administrator\'s login (default: admin)\n' +
        '  STACKYARD_PUBLIC_URL         the URL users log in with, when it is not http://<host>:<port>\n' +
        '  STACKYARD_ACCESS_LOG=on      the access log, as --access-log (default: off)\n' +
        '  STACKYARD_HOOKS_ALLOW_PRIVATE=true   let hooks call http:// and private addresses (receivers on this machine)\n' +
        '  STACKYARD_HOOKS_DISPATCH_MS  pause between hook dispatcher runs (default: 1000)\n' +
        '  STACKYARD_HOOKS_MAX_ATTEMPTS, STACKYARD_HOOKS_BASE_DELAY_MS, STACKYARD_HOOKS_MAX_DELAY_MS   delivery retries (default: 5, 2000, 300000)\n' +
        '  STACKYARD_HOOK_FUNCTION_ARNS the Lambda functions hooks may invoke, comma-separated (default: any)\n' +
        '  AWS_ENDPOINT_URL_LAMBDA      SDK endpoint override for Lambda hooks\n' +
        '  STACKYARD_RUNNER_POLL_MS     pause between a runner\'s looks at the run queue (default: 1000)\n' +
        '  STACKYARD_RUNNER_CLAIM_SECONDS   how long a run stays a runner\'s without a heartbeat (default: 60)\n',
    )
    .action(async (flags: ServeFlags) => (await import('./serve-run.js')).runServe(flags));
}
