import { Command, CommanderError } from 'commander';
import { registerCommands } from './commands/register.js';
import { serveCommand } from './commands/serve.js';
import { renderError } from './output/errors.js';

declare const __STACKYARD_VERSION__: string;

/** Builds the command tree; command bodies live in their own files and are imported only when run. */
export function createProgram(): Command {
  const program = new Command('stackyard')
    .description('Pulumi-compatible state backend and CLI')
    .version(__STACKYARD_VERSION__, '--version')
    .option('-s, --stack <name>', 'the stack to operate on')
    .option('-C, --cwd <dir>', 'run as if started in <dir>')
    .option('--non-interactive', 'never prompt')
    .option('--color <mode>', 'colorize output: always, never, raw, auto')
    .showHelpAfterError()
    .exitOverride();
  program.addCommand(serveCommand());
  registerCommands(program);
  return program;
}

async function main(argv: string[]): Promise<number> {
  const program = createProgram();
  try {
    await program.parseAsync(argv);
    // Engine commands report a failed operation through process.exitCode; keep it.
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander has already printed help/version/usage text.
      return err.exitCode === 0 ? 0 : 2;
    }
    return renderError(err);
  }
}

process.exitCode = await main(process.argv);
