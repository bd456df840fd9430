/**
 * Declares the `preview`, `up`, `destroy` and `refresh` commands. The engine is imported only when one of them runs.
 * Stack resolution (project files, config, backend session) is injected, so the same commands work on the local
 * backend and, later, on the service.
 */
import type { Command } from 'commander';
import type { ProgramSpec } from '../engine/program/language-host.js';
import type { StackConfig } from '../engine/config/program-config.js';
import type { OperationBackend, OperationCommand } from '../engine/operation-types.js';
import type { ProjectPlugin } from '../engine/plugins/plugin-discovery.js';
import { addEngineFlags, skipConfigValidation, toConfigFlags, toOperationFlags, type ConfigFlags } from './engine-flags.js';

/** What the engine needs to know about the stack a command runs on. */
export interface EngineStackContext {
  program: ProgramSpec;
  config: StackConfig;
  projectPlugins?: ProjectPlugin[];
  backend: OperationBackend;
  /** Pulumi.yaml `options.refresh: always`: refresh before each update unless `--refresh=false`. */
  refreshAlways?: boolean;
  /** `destroy --remove`: removes the stack (it must be empty) and its config file; returns what to print. */
  removeStack?(): Promise<string>;
}

/** What a command asks of the stack it runs on. */
export interface EngineStackRequest {
  stack?: string;
  command: OperationCommand;
  message?: string;
  /** `-c`, `--config-path`, `--config-file`: written to the stack's config file before the run, as `pulumi` does. */
  config?: ConfigFlags;
  /** `--skip-config-validation` (or `PULUMI_OPTION_SKIP_CONFIG_VALIDATION`): the project's config schema is not checked. */
  skipConfigValidation?: boolean;
  /** `refresh|destroy --run-program`: the program runs, so its config is validated as for `up`. */
  runProgram?: boolean;
}

/** Resolves the stack (by `--stack` or the selected one) from the current project directory. */
export type ResolveEngineStack = (request: EngineStackRequest) => Promise<EngineStackContext>;

export const ENGINE_COMMANDS: readonly Exclude<OperationCommand, 'import'>[] = ['preview', 'up', 'destroy', 'refresh'];

export const ENGINE_COMMAND_DESCRIPTIONS: Record<OperationCommand, string> = {
  preview: 'Show a preview of updates to a stack',
  up: 'Create or update the resources in a stack',
  destroy: 'Destroy all existing resources in the stack',
  refresh: 'Refresh the resources in a stack',
  import: 'Import resources into an existing stack',
};

/** Asks a yes/no question on the terminal; `undefined` when stdin is not interactive. */
export function terminalConfirm(): ((question: string) => Promise<boolean>) | undefined {
  if (!process.stdin.isTTY) return undefined;
  return async (question) => {
    const rl = (await import('node:readline/promises')).createInterface({ input: process.stdin, output: process.stderr });
    try {
      const answer = await rl.question(`${question} (yes/no) `);
      return answer.trim().toLowerCase() === 'yes' || answer.trim().toLowerCase() === 'y';
    } finally {
      rl.close();
    }
  };
}

/** Declares engine command `command`'s flags and action on `cmd`; `resolveStack` is loaded only when it runs. */
export function declareEngineCommand(cmd: Command, command: OperationCommand, loadResolver: () => Promise<ResolveEngineStack>): Command {
  addEngineFlags(cmd, command).action(async (own: Record<string, unknown>, self: Command) => {
    // the logging flags may also come before the command's name (`stackyard --logtostderr up -v 3`)
    const globals = self.optsWithGlobals();
    const opts: Record<string, unknown> = { ...own, logtostderr: own.logtostderr ?? globals.logtostderr, logflow: own.logflow ?? globals.logflow };
    const { flags, previewOnly, remove } = toOperationFlags(opts);
    const resolve = await loadResolver();
    const ctx = await resolve({
      stack: typeof opts.stack === 'string' ? opts.stack : undefined,
      command,
      message: typeof opts.message === 'string' ? opts.message : undefined,
      config: toConfigFlags(opts),
      skipConfigValidation: skipConfigValidation(opts),
      runProgram: flags.runProgram === true && (command === 'refresh' || command === 'destroy'),
    });
    if (flags.refresh === undefined && ctx.refreshAlways) flags.refresh = true;
    const [{ runOperation }, { handleInterrupts }, { terminalOf }] = await Promise.all([
      import('../engine/operation.js'),
      import('../engine/interrupts.js'),
      import('../engine/display/display.js'),
    ]);
    const importFile = command === 'preview' && typeof opts.importFile === 'string' ? (await import('../engine/import/preview-import-file.js')).previewImportFile(opts.importFile) : undefined;
    const interrupts = handleInterrupts({ write: (t) => void process.stderr.write(t) });
    try {
      process.exitCode = await runOperation({
        observe: importFile?.collector.events,
        command,
        flags,
        previewOnly,
        remove,
        program: ctx.program,
        config: ctx.config,
        projectPlugins: ctx.projectPlugins,
        backend: ctx.backend,
        write: (t) => void process.stdout.write(t),
        writeErr: (t) => void process.stderr.write(t),
        terminal: terminalOf(process.stdout),
        confirm: terminalConfirm(),
        signal: interrupts.signal,
      });
      // As `pulumi preview --import-file`: written once the preview succeeded.
      if (importFile && process.exitCode === 0) await importFile.write(ctx.backend.crypter);
      // As `pulumi destroy --remove`: only after a destroy of the whole stack succeeded.
      if (remove && process.exitCode === 0 && !flags.target?.length && ctx.removeStack) process.stdout.write(await ctx.removeStack());
    } finally {
      interrupts.dispose();
    }
  });
  return cmd;
}
