/**
 * Resolves the stack `preview`, `up`, `destroy` and `refresh` run on: the program from Pulumi.yaml, the stack's
 * configuration with its secrets decrypted, and an `OperationBackend` whose runs are updates on the current backend.
 */
import { rm } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import { formatStackRef, type StackRef } from '../../shared/core/names.js';
import { isForbidden, isNotFound, type Backend, type UpdateRequest } from '../backend/backend.js';
import type { OperationCommand } from '../engine/operation-types.js';
import { createOperationBackend } from '../backend/operation-backend.js';
import { UserError } from '../output/errors.js';
import { decryptConfig, effectiveConfig, engineConfig, updateConfig } from '../project/config-values.js';
import { validateStackConfig } from '../project/config-schema.js';
import { stackConfigPath } from '../project/project.js';
import { loadStackConfigFile } from '../project/remote-config.js';
import { openStackEnvironments } from '../project/stack-environments.js';
import { removeTemporaryFilesOnExit, temporaryFile } from '../environments/temporary-files.js';
import { applyConfigOverrides } from '../project/config-overrides.js';
import { CommandContext, type GlobalOptions } from './context.js';
import type { ResolveEngineStack } from './engine-command.js';
import { programFromProject } from './engine-program.js';
import { missingStackError } from './missing-stack.js';

/**
 * `globals` reads the program's own flags: the program takes `-s` and `--non-interactive` even when they are
 * written after the command name, so the command's `--stack` alone would miss them.
 */
export function createEngineStackResolver(globals: () => GlobalOptions): ResolveEngineStack {
  return async ({ stack, command, message, config, skipConfigValidation, runProgram }) => {
    const { stack: globalStack, nonInteractive } = globals();
    const ctx = new CommandContext({ stack: globalStack, nonInteractive });
    const project = await ctx.requireProject();
    const { backend, ref } = await ctx.resolveStack(stack);
    const details = await backend.getStack(ref).catch(async (error: unknown) => {
      if (isNotFound(error)) {
        throw await missingStackError(backend, ref, formatStackRef(ref), `Create it with \`stackyard stack init ${ref.stack}\`.`);
      }
      throw error;
    });

    let program;
    let projectPlugins;
    try {
      ({ program, projectPlugins } = programFromProject(project.raw, project.dir, ref.stack));
    } catch (error) {
      throw new UserError(`${project.file}: ${(error as Error).message}`);
    }
    program.organization = ref.org;

    const file = await loadStackConfigFile({
      project,
      stack: ref.stack,
      configEnvironment: details.configEnvironment,
      ...(config?.file ? { configFile: resolvePath(config.file) } : {}),
      warn: (text) => ctx.warn(text),
    });
    if (config?.overrides.length) {
      applyConfigOverrides(file, project.name, config.overrides, config.path);
      await file.save();
    }
    const entries = effectiveConfig(project, file);
    const updateProgram = { name: project.name, runtime: project.runtime ?? 'nodejs', main: program.main, description: project.description };
    const environment = { 'exec.kind': 'cli' };
    const plaintexts = await decryptConfig(backend, ref, entries, `Pulumi.${ref.stack}.yaml`).catch(async (error: unknown) => {
      throw await updateRefusal(backend, ref, command, { program: updateProgram, environment, config: updateConfig(entries) }, error);
    });
    // As Pulumi: the stack's environments are opened before the program runs; their config lies under the stack's own.
    const opened = await openStackEnvironments(backend.environments(), file.environments(), {
      org: ref.org,
      project: project.name,
      file: `Pulumi.${ref.stack}.yaml`,
    });
    const programConfig = { ...opened.config, ...engineConfig(entries, plaintexts) };
    // The program and the provider plugins inherit the CLI's environment.
    Object.assign(process.env, opened.variables, await writeEnvironmentFiles(opened.files));
    // As Pulumi: checked when the program runs (refresh and destroy with --run-program only) and before an import,
    // unless skipped.
    if ((command === 'preview' || command === 'up' || command === 'import' || runProgram) && !skipConfigValidation) {
      validateStackConfig(ref.stack, project.name, project.config, programConfig);
    }

    const tags: Record<string, string> = { ...details.tags, 'pulumi:project': project.name, 'pulumi:runtime': project.runtime ?? 'nodejs' };
    if (project.description) tags['pulumi:description'] = project.description.slice(0, 256);

    const options = (project.raw.options ?? {}) as { refresh?: unknown };
    return {
      program,
      projectPlugins,
      refreshAlways: options.refresh === 'always',
      removeStack: async () => {
        await backend.removeStack(ref, false);
        await rm(stackConfigPath(project, ref.stack), { force: true });
        return 'The resources in the stack have been deleted, and the history and configuration removed.\n';
      },
      config: programConfig,
      backend: createOperationBackend({
        backend,
        ref,
        program: updateProgram,
        config: updateConfig(entries),
        tags,
        message,
        environment,
      }),
    };
  };
}

/**
 * Writes each of the environments' `files` to a temporary file (0600) and gives the variables to set to their paths,
 * as Pulumi's CLI does before a program runs (esc's PrepareEnvironment). The files last until the CLI exits — the
 * program and its providers read them while the engine runs — and are removed then (Pulumi leaves them).
 */
async function writeEnvironmentFiles(files: Record<string, string>): Promise<Record<string, string>> {
  const names = Object.keys(files).sort();
  if (names.length === 0) return {};
  const paths: string[] = [];
  removeTemporaryFilesOnExit(paths);
  for (const name of names) paths.push(await temporaryFile(files[name]!));
  return Object.fromEntries(names.map((name, i) => [name, paths[i]!]));
}

/**
 * The error to show when decrypting the config for `command` failed with `error`. The config is decrypted before the
 * run creates its update (Pulumi validates it first too), so a caller who may not update is refused the decryption,
 * and that refusal names the wrong action. On a refusal (403), the service is asked for the run's first update
 * itself, and its answer (`update needs 'write'`) is the error; should it be granted, the decryption's refusal stands.
 */
async function updateRefusal(
  backend: Backend,
  ref: StackRef,
  command: OperationCommand,
  request: Omit<UpdateRequest, 'kind' | 'dryRun'>,
  error: unknown,
): Promise<unknown> {
  if (!isForbidden(error)) return error;
  const kind = command === 'up' || command === 'preview' ? 'preview' : command;
  return backend.createUpdate(ref, { ...request, kind, dryRun: true }).then(
    () => error,
    (refusal: unknown) => (isForbidden(refusal) ? refusal : error),
  );
}
