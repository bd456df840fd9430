/**
 * `watch`: runs `up` (no preview, no questions) each time files change in the project folder or the `--path`s given,
 * as Pulumi's watch does (pkg/backend/watch.go). Changes are debounced: a run starts once the files have been quiet
 * for a moment, and changes made during a run start one more run after it. Each run is the bundled CLI's own `up` in a
 * child process, so it behaves and prints exactly as `up` does; its result line is read from the stack's history.
 */
import { spawn } from 'node:child_process';
import { existsSync, watch as watchFiles, type FSWatcher } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { formatStackRef } from '../../shared/core/names.js';
import type { Backend, StackRef } from '../backend/backend.js';
import { UserError } from '../output/errors.js';
import { applyConfigOverrides } from '../project/config-overrides.js';
import { stackConfigPath } from '../project/project.js';
import { StackConfigFile } from '../project/stack-config.js';
import { stackConfigTarget } from './config.js';
import { toConfigFlags } from './engine-flags.js';
import type { CommandHandler } from './types.js';

/** How long the files must stay quiet before a run starts. */
const QUIET_MS = 300;
/** Folders whose changes never start a run: version control and installed packages. */
const IGNORED = new Set(['.git', 'node_modules']);

/** The flags of `watch` handed on to every `up`, as each is spelled there. */
const PASSED_ON: [option: string, flag: string][] = [
  ['debug', '--debug'],
  ['configFile', '--config-file'],
  ['message', '--message'],
  ['parallel', '--parallel'],
  ['refresh', '--refresh'],
  ['showConfig', '--show-config'],
  ['showReplacementSteps', '--show-replacement-steps'],
  ['showSames', '--show-sames'],
  ['skipPluginPreInstall', '--skip-plugin-pre-install'],
  ['color', '--color'],
];

/** `up`'s arguments: Pulumi's watch skips the preview and approves, and prints neither outputs nor progress. */
function upArguments(stack: string, opts: Record<string, unknown>): string[] {
  const argv = ['up', '--stack', stack, '--yes', '--skip-preview', '--suppress-outputs', '--suppress-progress'];
  for (const [option, flag] of PASSED_ON) {
    const value = opts[option];
    if (value === true) argv.push(flag);
    else if (value === false) argv.push(`${flag}=false`);
    else if (typeof value === 'string' || typeof value === 'number') argv.push(`${flag}=${value}`);
  }
  // repeatable, paired by position: each is handed on in its order
  for (const [option, flag] of [['policyPack', '--policy-pack'], ['policyPackConfig', '--policy-pack-config']] as const) {
    for (const value of (opts[option] as string[] | undefined) ?? []) argv.push(`${flag}=${value}`);
  }
  return argv;
}

/** Pulumi's watch line prefix: the time, then an empty resource column. */
function stamped(text: string): string {
  const now = new Date();
  const time = `${[now.getHours(), now.getMinutes(), now.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':')}.${String(now.getMilliseconds()).padStart(3, '0')}`;
  return `   ${time}[ ${''.padEnd(20)} ] ${text}`;
}

/** `1 create, 2 update` in Pulumi's order (by kind name, `same` left out), or `None`. */
function changesSummary(changes: Record<string, number> | undefined): string {
  const parts = Object.keys(changes ?? {})
    .filter((kind) => kind !== 'same' && (changes![kind] ?? 0) > 0)
    .sort()
    .map((kind) => `${changes![kind]} ${kind}`);
  return parts.length > 0 ? parts.join(', ') : 'None';
}

/** Runs one `up` and reports it as Pulumi's watch does, from the history entry it added (if it got that far). */
async function deploy(ctx: { out(text: string): void }, backend: Backend, ref: StackRef, argv: string[], cwd: string, running: { child?: ReturnType<typeof spawn> }): Promise<void> {
  ctx.out('Save detected. Deploying changes...');
  const [before] = await backend.history(ref, 1, 1);
  const child = spawn(process.execPath, [...process.execArgv, process.argv[1]!, ...argv], { cwd, stdio: 'inherit' });
  running.child = child;
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  running.child = undefined;
  const [after] = await backend.history(ref, 1, 1);
  const summary = `changes made: ${changesSummary(after && after.version !== before?.version ? after.resourceChanges : undefined)}`;
  ctx.out(stamped(code === 0 ? `Update complete; ${summary}.` : `Update failed; ${summary}.`));
}

export const watch: CommandHandler = async (ctx, _args, opts) => {
  const project = await ctx.requireProject();
  const { backend, ref } = await stackConfigTarget(ctx, project, await ctx.resolveStack(opts.stack as string | undefined));
  // `-c` values are saved once, before watching (Pulumi's parseAndSaveConfigArray), so no run rewrites a watched file.
  const config = toConfigFlags(opts);
  if (config.overrides.length > 0) {
    const file = config.file ? await StackConfigFile.load(config.file) : await StackConfigFile.load(stackConfigPath(project, ref.stack));
    applyConfigOverrides(file, project.name, config.overrides, config.path);
    await file.save();
  }
  const paths = ((opts.path as string[] | undefined) ?? ['']).map((p) => (isAbsolute(p) ? p : join(project.dir, p)));
  const missing = paths.find((p) => !existsSync(p));
  if (missing) throw new UserError(`cannot watch ${missing}: no such file or folder`, 'Pass existing paths with --path (relative ones are read from the project folder).');
  const argv = upArguments(formatStackRef(ref), opts);
  const running: { child?: ReturnType<typeof spawn> } = {};
  let timer: NodeJS.Timeout | undefined;
  let again = false;
  let stopped = false;
  let busy: Promise<void> | undefined;
  const start = () => {
    timer = undefined;
    if (stopped) return;
    if (busy) {
      again = true;
      return;
    }
    busy = deploy(ctx, backend, ref, argv, project.dir, running).finally(() => {
      busy = undefined;
      if (again) {
        again = false;
        start();
      }
    });
  };
  const changed = (root: string, name: string | null) => {
    const parts = name ? relative(root, join(root, name)).split(sep) : [];
    if (parts.some((part) => IGNORED.has(part))) return;
    clearTimeout(timer);
    timer = setTimeout(start, QUIET_MS);
  };
  const watchers: FSWatcher[] = paths.map((root) => watchFiles(root, { recursive: true }, (_event, name) => changed(root, name)));
  ctx.out(`Watch mode enabled. Make an edit to ${formatStackRef(ref)} and save to deploy.`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      stopped = true;
      for (const w of watchers) w.close();
      clearTimeout(timer);
      // A run in progress gets the interrupt too (`up` cancels itself); watch ends when it has.
      running.child?.kill('SIGINT');
      void (busy ?? Promise.resolve()).then(resolve);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
};
