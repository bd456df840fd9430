/**
 * Resolves the stack `preview`, `up`, `destroy` and `refresh` run on: the program from Pulumi.yaml, the stack's
 * configuration with its secrets decrypted, and an `OperationBackend` whose runs are updates on the current backend.
 */
import { rm } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import { formatStackRef } from '../../shared/core/names.js';
import { isNotFound } from '../backend/backend.js';
import { createOperationBackend } from '../backend/operation-backend.js';
import { UserError } from '../output/errors.js';
import { decryptConfig, effectiveConfig, engineConfig, updateConfig } from '../project/config-values.js';
import { validateStackConfig } from '../project/config-schema.js';
import { stackConfigPath } from '../project/project.js';
import { StackConfigFile } from '../project/stack-config.js';
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
  return async ({ stack, command, message, config, skipConfigValidation }) => {
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

    const defaultConfigPath = stackConfigPath(project, ref.stack);
    const file = await StackConfigFile.load(config?.file ? resolvePath(config.file) : defaultConfigPath);
    if (config?.overrides.length) {
      applyConfigOverrides(file, project.name, config.overrides, config.path);
      await file.save();
    }
    const entries = effectiveConfig(project, file);
    const plaintexts = await decryptConfig(backend, ref, entries, `Pulumi.${ref.stack}.yaml`);
    const programConfig = engineConfig(entries, plaintexts);
    // As Pulumi: checked only when the program runs (refresh and destroy here never run it), unless skipped.
    if ((command === 'preview' || command === 'up') && !skipConfigValidation) {
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
        await rm(defaultConfigPath, { force: true });
        return 'The resources in the stack have been deleted, and the history and configuration removed.\n';
      },
      config: programConfig,
      backend: createOperationBackend({
        backend,
        ref,
        program: { name: project.name, runtime: project.runtime ?? 'nodejs', main: program.main, description: project.description },
        config: updateConfig(entries),
        tags,
        message,
        environment: { 'exec.kind': 'cli' },
      }),
    };
  };
}
