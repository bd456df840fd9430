import { Command } from 'commander';
import { UserError } from '../output/errors.js';

/**
 * `stackyard runner --run <id>` (hidden): runs one deployment run with its sealed token, as the CodeBuild buildspec
 * does (functions/runner/run-one.ts). Exits 0 when the run succeeded, 1 when it failed (the build then shows failed
 * too), 3 when the run changed hands before it ended.
 */
export function runnerCommand(): Command {
  return new Command('runner')
    .description('run one queued deployment run with its sealed token (what a CodeBuild runner build runs)')
    .requiredOption('--run <id>', 'the run to run')
    .action(async (flags: { run: string }) => {
      if (!/^[0-9a-f-]{36}$/.test(flags.run)) throw new UserError(`--run takes a deployment run id, not '${flags.run.slice(0, 40)}'.`);
      const { runOne } = await import('../../functions/runner/run-one.js');
      const shutdown = new AbortController();
      process.once('SIGTERM', () => shutdown.abort());
      process.once('SIGINT', () => shutdown.abort());
      const outcome = await runOne({ runId: flags.run, cli: process.argv[1]!, env: process.env }, shutdown.signal);
      process.exitCode = outcome === undefined ? 3 : outcome.status === 'succeeded' ? 0 : 1;
    });
}
