/**
 * `stackyard import`, as `pulumi import`: one resource from the command line (`<type> <name> <id>`, `--parent`,
 * `--provider`, `--properties`) or many from an import file (`--file`), adopted through their providers' Read by an
 * import deployment (preview first unless `--skip-preview`; nothing is recorded when the preview fails), then the
 * TypeScript declaring them printed (or written to `--out`). The import file, the plan and the code generator are
 * cli/engine/import/; the run is the engine's (`import` in runOperation).
 */
import { writeFile } from 'node:fs/promises';
import { UsageError, UserError } from '../output/errors.js';
import { ImportFileError, readImportFile, singleResourceFile, type ImportFile } from '../engine/import/import-file.js';
import type { CommandHandler } from './types.js';

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** What Pulumi prints before the generated code. */
function codeNote(protect: boolean): string {
  let note =
    'Please copy the following code into your Pulumi application. Not doing so\n' +
    'will cause Pulumi to report that an update will happen on the next update command.\n\n';
  if (protect) {
    note +=
      'Please note that the imported resources are marked as protected. To destroy them\n' +
      'you will need to remove the `protect` option and run `stackyard up` *before*\n' +
      'the destroy will take effect.\n\n';
  }
  return note;
}

/** The import file the command line stands for, with Pulumi's refusals of a command line that does not add up. */
async function importFileOf(args: (string | undefined)[], opts: Record<string, unknown>): Promise<ImportFile> {
  const given = args.filter((a): a is string => a !== undefined);
  const properties = Array.isArray(opts.properties) ? (opts.properties as string[]) : [];
  const file = str(opts.file);
  if (file !== undefined) {
    if (given.length || opts.parent !== undefined || opts.provider !== undefined || properties.length) {
      throw new UsageError('an inline resource may not be specified in conjunction with an import file');
    }
    return readImportFile(file);
  }
  const missing = ['type, name, and id', 'name and id', 'id'][given.length];
  if (missing) throw new UsageError(`an inline resource must be specified if no converter or import file is used, missing ${missing}`);
  const [type, name, id] = given as [string, string, string];
  return singleResourceFile(type, name, id, properties, str(opts.parent), str(opts.provider));
}

export const importResources: CommandHandler = async (_ctx, args, opts) => {
  const generateCode = opts.generateCode !== false;
  const protect = opts.protect !== false;
  const out = str(opts.out);
  const [{ createEngineStackResolver }, { toOperationFlags }, { planImports }, { decodeFileProperties }] = await Promise.all([
    import('./engine-stack.js'),
    import('./engine-flags.js'),
    import('../engine/import/import-plan.js'),
    import('../engine/import/file-properties.js'),
  ]);
  let file: ImportFile;
  try {
    file = await importFileOf(args, opts);
  } catch (err) {
    if (err instanceof ImportFileError) throw new UserError(err.message);
    throw err;
  }
  if (!generateCode && out) process.stderr.write('Output file will not be used as --generate-code is false.\n');

  const resolve = createEngineStackResolver(() => ({ stack: str(opts.stack), nonInteractive: opts.nonInteractive === true }));
  const stack = await resolve({ stack: str(opts.stack), command: 'import', message: str(opts.message), config: { overrides: [], path: false, file: str(opts.configFile) } });
  const { program, backend } = stack;
  const plan = await planImports(file, program.stack, program.project, protect, (serialized) => decodeFileProperties(serialized, backend.crypter)).catch((err: unknown) => {
    throw err instanceof ImportFileError ? new UserError(err.message.trimEnd()) : err;
  });
  // as Pulumi: the output file is opened (emptied) before the import runs
  if (generateCode && out) await writeFile(out, '');

  const { flags, previewOnly } = toOperationFlags(opts);
  const [{ runOperation }, { handleInterrupts }, { terminalOf }, { terminalConfirm }] = await Promise.all([
    import('../engine/operation.js'),
    import('../engine/interrupts.js'),
    import('../engine/display/display.js'),
    import('./engine-command.js'),
  ]);
  const interrupts = handleInterrupts({ write: (t) => void process.stderr.write(t) });
  try {
    process.exitCode = await runOperation({
      command: 'import',
      flags,
      previewOnly,
      imports: plan.imports,
      program,
      config: stack.config,
      projectPlugins: stack.projectPlugins,
      backend,
      write: (t) => void process.stdout.write(t),
      writeErr: (t) => void process.stderr.write(t),
      terminal: terminalOf(process.stdout),
      confirm: terminalConfirm(),
      signal: interrupts.signal,
    });
  } finally {
    interrupts.dispose();
  }
  if (!generateCode) return;
  if (program.runtime) {
    process.stderr.write(`warning: stackyard generates TypeScript only; no code was generated for the project's ${program.runtime.name} runtime\n`);
    return;
  }
  const { importedCode } = await import('../engine/import/imported-code.js');
  const code = await importedCode(plan, {
    stack: program.stack,
    project: program.project,
    state: await backend.currentState?.(),
    crypter: backend.crypter,
    protect,
    discovery: { programDir: program.rootDir, projectPlugins: stack.projectPlugins, projectDir: program.rootDir, env: process.env },
    rootDir: program.rootDir,
    env: process.env,
  });
  if (code === undefined) return;
  if (out) await writeFile(out, code);
  else if (!flags.json) process.stdout.write(`${codeNote(protect)}${code}`);
};
