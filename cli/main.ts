import { CommanderError } from 'commander';
import { renderError } from './output/errors.js';
import { dropSdkNodeVersionWarning } from './sdk-warnings.js';
import { createProgram } from './program.js';
import { UnknownCommandError } from './commands/stackyard-command.js';

declare const __STACKYARD_VERSION__: string;

async function main(argv: string[]): Promise<number> {
  const program = createProgram(__STACKYARD_VERSION__);
  try {
    await program.parseAsync(argv);
    // Engine commands report a failed operation through process.exitCode; keep it.
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof UnknownCommandError) {
      const { unknownCommandMessage } = await import('./commands/unknown-command.js');
      process.stderr.write(`error: ${unknownCommandMessage(err.command, err.words)}\n`);
      return err.exitCode;
    }
    if (err instanceof CommanderError) {
      // Commander has already printed help/version/usage text.
      return err.exitCode === 0 ? 0 : 2;
    }
    return renderError(err);
  }
}

dropSdkNodeVersionWarning();
// Not a top-level await: chunks loaded later import this module (scripts/merge-startup-chunks.mjs), and importing a
// module whose top-level await has not settled would wait for it forever.
void main(process.argv).then((code) => {
  process.exitCode = code;
});
