/** The command tree of `stackyard`, built apart from `main` so tests can walk it. */
import type { Command } from 'commander';
import { registerCommands } from './commands/register.js';
import { runnerCommand } from './commands/runner.js';
import { serveCommand } from './commands/serve.js';
import { StackyardCommand } from './commands/stackyard-command.js';

/** Builds the command tree; command bodies live in their own files and are imported only when run. */
export function createProgram(version: string): Command {
  const program: Command = new StackyardCommand('stackyard')
    .description('Pulumi-compatible state backend and CLI')
    .version(version, '--version')
    .option('-s, --stack <name>', 'the stack to operate on')
    .option('-C, --cwd <dir>', 'run as if started in <dir>')
    .option('--non-interactive', 'never prompt')
    .option('--color <mode>', 'colorize output: always, never, raw, auto')
    .option('--logflow', 'flow log settings to child processes (like plugins)')
    .option('--logtostderr', 'log to stderr instead of to files')
    .showHelpAfterError()
    .exitOverride();
  program.addCommand(serveCommand());
  // What a CodeBuild runner build runs; not a command for people (docs/deployments.md, "On AWS").
  program.addCommand(runnerCommand(), { hidden: true });
  registerCommands(program);
  return program;
}
