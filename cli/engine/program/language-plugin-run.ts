/**
 * The program phase of a preview or update for a runtime served by a language plugin: start the plugin, install the
 * plugins it says the program needs (before the first step), then Run the program against our resource monitor.
 */
import type { PluginAcquirer } from '../../plugins/acquire.js';
import type { EngineEvents } from '../display/events.js';
import { LanguagePlugin, type LanguageProgramInfo } from '../plugins/languages/language-plugin.js';
import type { ProjectPlugin } from '../plugins/plugin-discovery.js';
import type { StepExecutor } from '../steps/step-executor.js';
import { programLocation, type ProgramSpec } from './language-host.js';
import type { StackConfig } from '../config/program-config.js';
import type { ProgramHost } from './program-host.js';

/** What the program phase needs of a deployment's options (`DeploymentOptions` is one). */
export interface LanguageRunOptions {
  program: ProgramSpec & { runtime: NonNullable<ProgramSpec['runtime']> };
  config: StackConfig;
  env?: NodeJS.ProcessEnv;
  projectPlugins?: ProjectPlugin[];
  /** Install the plugins the program needs (default true). */
  acquirePlugins?: boolean;
  /** Cancels the program once the steps in progress are done. */
  signal?: AbortSignal;
  /** Concurrent steps the program is told about (default 16). */
  parallel?: number;
  /** `--logflow`'s arguments for the language plugin. */
  pluginLoggingArgs?: readonly string[];
}

/** Grace period for a cancelled program before its plugin is stopped. */
const CANCEL_GRACE_MS = 5_000;

/** Runs the program through `pulumi-language-<runtime>`; returns an error message when it failed on its own. */
export async function runThroughLanguagePlugin(
  opts: LanguageRunOptions,
  host: ProgramHost,
  ex: StepExecutor,
  dryRun: boolean,
  events: EngineEvents,
  acquirer: PluginAcquirer,
): Promise<string | undefined> {
  const env = opts.env ?? process.env;
  const { programDir, entry } = programLocation(opts.program);
  const info: LanguageProgramInfo = {
    rootDirectory: opts.program.rootDir,
    programDirectory: programDir,
    entryPoint: entry === '.' ? '.' : entry.replace(/^\.\//, ''),
    options: opts.program.runtime.options,
  };
  const plugin = await LanguagePlugin.start({
    runtime: opts.program.runtime.name,
    engineAddress: host.address,
    loggingArgs: opts.pluginLoggingArgs,
    rootDir: opts.program.rootDir,
    programDir,
    env,
    projectPlugins: opts.projectPlugins,
    acquirer: opts.acquirePlugins === false ? undefined : acquirer,
    onLog: (line) => events.programOutput?.('stderr', `${line}\n`),
    onWarning: (message) => events.diag?.({ severity: 'warning', message }),
  });
  let timer: NodeJS.Timeout | undefined;
  const onAbort = () =>
    void ex.idle().then(() => {
      void plugin.cancel();
      timer = setTimeout(() => void plugin.close(), CANCEL_GRACE_MS);
      timer.unref();
    });
  try {
    if (opts.acquirePlugins !== false) await acquirer.ensureAll(await plugin.requiredPlugins(info));
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener('abort', onAbort, { once: true });
    const result = await plugin.run({
      info,
      project: opts.program.project,
      stack: opts.program.stack,
      organization: opts.program.organization,
      monitorAddress: host.address,
      config: opts.config,
      dryRun,
      parallel: opts.parallel ?? 16,
    });
    if (result.bail) return host.programErrored ? undefined : 'the program failed';
    return result.error;
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onAbort);
    await plugin.close();
  }
}
