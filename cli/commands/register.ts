/**
 * The command tree, in Pulumi's grammar. Only names and flags live here (one grammar module per command group, in
 * grammar/): each command's body is imported when it runs, and a command's flags and subcommands are declared only
 * when commander reaches it (lazy-tree.ts).
 */
import type { Command } from 'commander';
import { UserError } from '../output/errors.js';
import { ENGINE_COMMAND_DESCRIPTIONS, ENGINE_COMMANDS, declareEngineCommand } from './engine-command.js';
import { registerAccountGrammar } from './grammar/account-grammar.js';
import { registerConfigGrammar } from './grammar/config-grammar.js';
import { registerEnvironmentsGrammar } from './grammar/environments-grammar.js';
import { registerDeploymentGrammar } from './grammar/deployment-grammar.js';
import { registerImportGrammar } from './grammar/import-grammar.js';
import { registerOrganizationGrammar } from './grammar/organization-grammar.js';
import { registerPlanGrammar } from './grammar/plan-grammar.js';
import { registerPluginAndHookGrammar } from './grammar/plugin-hook-grammar.js';
import { registerPolicyGrammar } from './grammar/policy-grammar.js';
import { registerProjectGrammar } from './grammar/project-grammar.js';
import { registerStackGrammar } from './grammar/stack-grammar.js';
import { registerStateGrammar } from './grammar/state-grammar.js';
import { COMMAND_GLOBALS, GLOBAL_REFUSED } from './grammar/tree.js';
import { declareLater, declareOnDispatch, declareTreeBeforeHelp } from './lazy-tree.js';
import { addFlags, assertNoRefusedFlags } from './pulumi-flags.js';

/** Adds every command (and Pulumi's global flags) to the program. */
export function registerCommands(program: Command): void {
  program.enablePositionalOptions();
  addFlags(program, GLOBAL_REFUSED);
  declareOnDispatch(program);
  declareTreeBeforeHelp(program);
  program.addHelpText('after', '\nThe options above (and -v/--verbose, --tracing) are also accepted after any command name.\nSee docs/cli.md.');
  program.hook('preAction', (_program, actionCommand) => {
    assertNoRefusedFlags(actionCommand, true);
    const cwd = actionCommand.optsWithGlobals().cwd as string | undefined;
    if (cwd) {
      try {
        process.chdir(cwd);
      } catch {
        throw new UserError(`cannot run in '${cwd}': no such folder`, 'Pass an existing folder with -C <dir>.');
      }
    }
  });

  registerAccountGrammar(program);
  registerStackGrammar(program);
  registerProjectGrammar(program);
  registerConfigGrammar(program);
  registerEnvironmentsGrammar(program);
  registerStateGrammar(program);
  registerOrganizationGrammar(program);
  registerPluginAndHookGrammar(program);
  registerDeploymentGrammar(program);
  registerPolicyGrammar(program);
  registerImportGrammar(program);
  registerPlanGrammar(program);

  for (const command of ENGINE_COMMANDS) {
    const cmd = program.command(command).description(ENGINE_COMMAND_DESCRIPTIONS[command]);
    declareLater(cmd, () => {
      declareEngineCommand(cmd, command, async () => (await import('./engine-stack.js')).createEngineStackResolver(() => program.opts()));
      // The engine flags include --color, -v and --tracing; the remaining global ones are added here.
      addFlags(cmd, COMMAND_GLOBALS.filter((f) => !/^(--color|-v,|--tracing)/.test(f.flags)));
    });
  }
  inheritSettings(program);
}

/**
 * Commands built with `new Command` (serve) do not inherit the program's settings; without this a
 * usage error in them would exit 1 from inside commander instead of reaching main's exit code 2.
 */
function inheritSettings(parent: Command): void {
  for (const sub of parent.commands) {
    sub.copyInheritedSettings(parent);
    inheritSettings(sub);
  }
}
