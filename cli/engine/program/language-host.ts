/**
 * Runs a Node.js Pulumi program the way `pulumi-language-nodejs` does: the program's own
 * `@pulumi/pulumi/cmd/run`, resolved from the program directory, with the same argv and environment.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { diesWithParent, signalGroup, trackChild } from '../plugins/child-processes.js';
import { goJson } from '../go-formats/go-json.js';
import type { StackConfig } from '../config/program-config.js';

/** The `nodejs` runtime options of Pulumi.yaml. */
export interface NodeRuntimeOptions {
  typescript?: boolean;
  nodeargs?: string;
  tsconfig?: string;
}

/** What to run. */
export interface ProgramSpec {
  /** Directory holding Pulumi.yaml. */
  rootDir: string;
  /** Pulumi.yaml `main` (file or directory), relative to rootDir. */
  main?: string;
  runtimeOptions?: NodeRuntimeOptions;
  /**
   * A runtime other than `nodejs` (Pulumi.yaml `runtime`, name and options): the program runs through the language
   * plugin `pulumi-language-<name>` (cli/engine/plugins/languages/language-plugin.ts). Absent for Node.js programs.
   */
  runtime?: { name: string; options: Record<string, unknown> };
  project: string;
  stack: string;
  organization?: string;
}

/** A running program. */
export interface ProgramProcess {
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal?: NodeJS.Signals): void;
}

/**
 * Node 20 `util.inspect(err, {colors: true})` can loop for tens of seconds on some source-mapped stack frames, and
 * `cmd/run` formats every uncaught error that way. Preloading this forces colour off for errors only.
 */
const PRELOAD_SOURCE = `'use strict';
const util = require('util');
const original = util.inspect;
function inspect(value, opts, ...rest) {
  if (value instanceof Error && opts !== null && typeof opts === 'object' && opts.colors) opts = Object.assign({}, opts, { colors: false });
  return original.call(this, value, opts, ...rest);
}
for (const key of Reflect.ownKeys(original)) {
  if (key === 'length' || key === 'name' || key === 'prototype') continue;
  Object.defineProperty(inspect, key, Object.getOwnPropertyDescriptor(original, key));
}
util.inspect = inspect;
`;

function preloadPath(): string {
  const hash = createHash('sha256').update(PRELOAD_SOURCE).digest('hex').slice(0, 12);
  const dir = join(tmpdir(), 'stackyard-engine');
  const file = join(dir, `program-preload-${hash}.cjs`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, PRELOAD_SOURCE);
    // rename is atomic, so concurrent engines never see a half-written file
    renameSync(temp, file);
  }
  return file;
}

/**
 * Directory the program runs in and the entry point handed to `cmd/run`, as Pulumi's `getPwdMain` (pkg/engine):
 * `main` a folder runs there with entry `.`; `main` a file runs in the file's folder with its base name, so relative
 * paths inside the program resolve from there; a `main` that is not there fails before the program starts.
 */
export function programLocation(spec: ProgramSpec): { programDir: string; entry: string } {
  if (!spec.main) return { programDir: spec.rootDir, entry: '.' };
  const target = resolve(spec.rootDir, spec.main);
  let isDirectory: boolean;
  try {
    isDirectory = statSync(target).isDirectory();
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (error as Error).message;
    throw new Error(`project 'main' could not be read: stat ${target}: ${reason}`);
  }
  if (isDirectory) return { programDir: target, entry: '.' };
  return { programDir: dirname(target), entry: `./${basename(target)}` };
}

/** `PULUMI_CONFIG` and `PULUMI_CONFIG_SECRET_KEYS` as the Go language host builds them. */
export function configEnv(config: StackConfig): { PULUMI_CONFIG: string; PULUMI_CONFIG_SECRET_KEYS: string } {
  const values: Record<string, string> = {};
  const secretKeys: string[] = [];
  for (const [key, v] of Object.entries(config)) {
    const i = key.indexOf(':');
    values[i < 0 ? key : `${key.slice(0, i)}:config:${key.slice(i + 1)}`] = v.value;
    if (v.secret) secretKeys.push(key);
  }
  return { PULUMI_CONFIG: goJson(values), PULUMI_CONFIG_SECRET_KEYS: goJson(secretKeys) };
}

/**
 * The environment Pulumi's plugin host adds for a provider plugin (`NewProvider` in pkg/resource/plugin): each
 * runtime option of Pulumi.yaml as `PULUMI_RUNTIME_<OPTION>`, the project as `PULUMI_PROJECT` (and, for the Node.js
 * dynamic provider, `PULUMI_NODEJS_PROJECT`, which `pulumi.Config` and `getProject()` read), and as `PULUMI_CONFIG`
 * the stack config of the plugin's own namespace keyed by bare name.
 */
export function providerEnv(pkg: string, spec: Pick<ProgramSpec, 'project' | 'runtimeOptions'>, config: StackConfig): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [option, value] of Object.entries(spec.runtimeOptions ?? {})) {
    if (value !== undefined) env[`PULUMI_RUNTIME_${option.toUpperCase()}`] = String(value);
  }
  if (spec.project) {
    if (pkg === 'pulumi-nodejs') env.PULUMI_NODEJS_PROJECT = spec.project;
    env.PULUMI_PROJECT = spec.project;
  }
  const own: Record<string, string> = {};
  for (const [key, v] of Object.entries(config)) {
    const i = key.indexOf(':');
    if (i > 0 && key.slice(0, i) === pkg) own[key.slice(i + 1)] = v.value;
  }
  env.PULUMI_CONFIG = goJson(own);
  return env;
}

/** How long output may still arrive after the program exited. */
const OUTPUT_DRAIN_MS = 1_000;

/** Cuts text into lines, each handed on with its `\n`; `end` hands on an unterminated last line, `\n` added. */
export function lineSplitter(emit: (line: string) => void): { push: (text: string) => void; end: () => void } {
  let partial = '';
  return {
    push: (text) => {
      partial += text;
      let nl: number;
      while ((nl = partial.indexOf('\n')) >= 0) {
        emit(partial.slice(0, nl + 1));
        partial = partial.slice(nl + 1);
      }
    },
    end: () => {
      if (partial) emit(`${partial}\n`);
      partial = '';
    },
  };
}

/** Spawns the program. Output lines go to `onOutput`. */
export function launchProgram(
  spec: ProgramSpec,
  opts: {
    monitorAddress: string;
    engineAddress: string;
    dryRun: boolean;
    parallel: number;
    config: StackConfig;
    env?: NodeJS.ProcessEnv;
    args?: string[];
    onOutput?: (stream: 'stdout' | 'stderr', text: string) => void;
  },
): ProgramProcess {
  const { programDir, entry } = programLocation(spec);
  let runScript: string;
  try {
    runScript = createRequire(join(programDir, 'noop.js')).resolve('@pulumi/pulumi/cmd/run');
  } catch {
    throw new Error(`could not find @pulumi/pulumi from ${programDir}; run \`npm install\` in the program directory`);
  }
  const ro = spec.runtimeOptions ?? {};
  const nodeArgs = (ro.nodeargs ?? '').split(/\s+/).filter(Boolean);
  const argv = [
    ...nodeArgs,
    '--require', preloadPath(),
    runScript,
    '--monitor', opts.monitorAddress,
    '--engine', opts.engineAddress,
    '--organization', spec.organization ?? 'organization',
    '--project', spec.project,
    '--root-directory', spec.rootDir,
    '--stack', spec.stack,
    '--pwd', programDir,
    ...(opts.dryRun ? ['--dry-run'] : []),
    '--parallel', String(opts.parallel),
    entry,
    ...(opts.args ?? []),
  ];
  const env: NodeJS.ProcessEnv = {
    ...(opts.env ?? process.env),
    ...configEnv(opts.config),
    PULUMI_NODEJS_TYPESCRIPT: ro.typescript === false ? 'false' : 'true',
  };
  if (ro.tsconfig) env.PULUMI_NODEJS_TSCONFIG_PATH = ro.tsconfig;
  const launch = diesWithParent(process.execPath, argv);
  // A process group of its own: a terminal's Ctrl-C reaches the CLI only, which stops the program once the steps in
  // progress are done, and the program's own children are stopped with it.
  const child = spawn(launch.command, launch.args, { cwd: programDir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  trackChild(child);
  const streams = (['stdout', 'stderr'] as const).map((name) => {
    const stream = child[name];
    stream.setEncoding('utf8');
    // Whole lines only, as Pulumi's plugin host scans them: a line one stream leaves open is never glued to the
    // other stream's output.
    const lines = lineSplitter((line) => opts.onOutput?.(name, line));
    stream.on('data', lines.push);
    return { closed: new Promise<void>((done) => stream.once('close', done)), lines };
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => {
    child.once('exit', (code, signal) => res({ code, signal }));
    child.once('error', () => res({ code: -1, signal: null }));
  }).then(async (status) => {
    // The last output arrives after the exit; a process the program left behind may hold the pipes open for good.
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((done) => (timer = setTimeout(done, OUTPUT_DRAIN_MS)));
    await Promise.race([Promise.all(streams.map((s) => s.closed)), grace]);
    clearTimeout(timer);
    for (const s of streams) s.lines.end();
    return status;
  });
  return { exited, kill: (signal = 'SIGINT') => signalGroup(child, signal) };
}
