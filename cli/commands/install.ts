/**
 * `stackyard install [--no-dependencies] [--no-plugins] [--reinstall] [--parallel N] [--use-language-version-tools]`:
 * installs the current program's dependencies (Node.js: the project's package manager; other runtimes: the language
 * plugin's InstallDependencies) and then the plugins it needs, as `pulumi install` does.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { projectPluginReport, withProjectLanguagePlugin } from '../engine/plugins/languages/project-plugins.js';
import { UserError } from '../output/errors.js';
import { PluginAcquisitionError } from '../plugins/acquire.js';
import { installMany } from '../plugins/install-many.js';
import { programDirOf, runtimeName } from '../plugins/project-plugins.js';
import { STACKYARD_VERSION } from '../version.js';
import type { CommandHandler } from './types.js';

/** The package manager of a Node.js program: `runtime.options.packagemanager`, else the lock file's, else npm. */
function packageManager(raw: Record<string, unknown>, programDir: string): string {
  const options = typeof raw.runtime === 'object' && raw.runtime !== null ? ((raw.runtime as { options?: Record<string, unknown> }).options ?? {}) : {};
  if (typeof options.packagemanager === 'string' && options.packagemanager) return options.packagemanager;
  if (existsSync(join(programDir, 'pnpm-lock.yaml'))) return 'pnpm';
  if (existsSync(join(programDir, 'yarn.lock'))) return 'yarn';
  if (existsSync(join(programDir, 'bun.lockb')) || existsSync(join(programDir, 'bun.lock'))) return 'bun';
  return 'npm';
}

function runTool(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: 'inherit' });
    child.once('error', (err) => reject(new UserError(`could not run ${command}: ${err.message}`, `Install ${command}, or set runtime.options.packagemanager in Pulumi.yaml.`)));
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new UserError(`\`${command} ${args.join(' ')}\` failed with exit code ${code}`))));
  });
}

export const install: CommandHandler = async (ctx, _args, opts) => {
  const project = await ctx.requireProject();
  const runtime = runtimeName(project.raw);
  if (!runtime) throw new UserError('Pulumi.yaml has no runtime', 'Add `runtime: <language>` to Pulumi.yaml.');
  if (opts.dependencies !== false) {
    if (runtime === 'nodejs') {
      const programDir = programDirOf(project.raw, project.dir);
      const pm = packageManager(project.raw, programDir);
      await runTool(pm, ['install'], programDir, ctx.env);
    } else {
      await withProjectLanguagePlugin(project.raw, project.dir, ctx.env, (plugin, info) =>
        plugin.installDependencies(info, { isTerminal: process.stdout.isTTY === true, useLanguageVersionTools: opts.useLanguageVersionTools === true }, (stream, chunk) =>
          void (stream === 'stdout' ? process.stdout : process.stderr).write(chunk),
        ),
      );
    }
  }
  if (opts.plugins !== false) {
    const { plugins } = await projectPluginReport(project.raw, project.dir, ctx.env, STACKYARD_VERSION);
    try {
      await installMany(plugins, {
        env: ctx.env,
        reinstall: opts.reinstall === true,
        parallel: typeof opts.parallel === 'number' ? opts.parallel : 4,
        userAgent: `stackyard/${STACKYARD_VERSION}`,
        write: (line) => void process.stderr.write(`${line}\n`),
      });
    } catch (err) {
      if (err instanceof PluginAcquisitionError) throw new UserError(err.message);
      throw err;
    }
  }
};
