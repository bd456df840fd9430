/**
 * Starts a local policy pack as Pulumi does (`plugin.NewPolicyAnalyzer` and the nodejs language host's `RunPlugin`
 * for kind `analyzer`): reads `PulumiPolicy.yaml`, runs `node <pack>/node_modules/@pulumi/pulumi/cmd/run-policy-pack
 * <engine> <pack>` in the pack's folder with the stack's settings in its environment (`PULUMI_CONFIG`,
 * `PULUMI_NODEJS_STACK` …), reads the port it prints, then Handshake and ConfigureStack. The process is one of the
 * engine's children (its own process group, killed with the CLI).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { launchPlugin } from '../plugin-host.js';
import { AnalyzerClient, type StackSettings } from './analyzer-client.js';

/** How a pack is started and how long it may take. */
export interface PackLaunchOptions {
  engineAddress: string;
  settings: StackSettings;
  env: NodeJS.ProcessEnv;
  /** Waiting for the port (default 60 s: a pack compiles TypeScript first). */
  launchMs?: number;
  /** Each call to the pack (default 2 minutes). */
  callMs?: number;
  onLog?: (line: string) => void;
}

/** `PulumiPolicy.yaml`: the runtime and, when given, the version and description. */
interface PolicyProject {
  runtime: string;
  version: string;
}

function readPolicyProject(dir: string): PolicyProject {
  const file = join(dir, 'PulumiPolicy.yaml');
  if (!existsSync(file)) throw new Error(`failed to load Pulumi policy project located at "${dir}": no PulumiPolicy.yaml there`);
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`failed to load Pulumi policy project located at "${dir}": ${(err as Error).message}`);
  }
  const d = (doc ?? {}) as { runtime?: unknown; version?: unknown };
  const runtime = typeof d.runtime === 'string' ? d.runtime : typeof d.runtime === 'object' && d.runtime ? String((d.runtime as { name?: unknown }).name ?? '') : '';
  if (!runtime) throw new Error(`failed to load Pulumi policy project located at "${dir}": PulumiPolicy.yaml names no runtime`);
  return { runtime, version: d.version === undefined || d.version === null ? '' : String(d.version) };
}

/** The pack's own copy of the policy-pack runner (`@pulumi/pulumi/cmd/run-policy-pack`). */
function runnerOf(dir: string): string {
  try {
    return createRequire(join(dir, 'index.js')).resolve('@pulumi/pulumi/cmd/run-policy-pack');
  } catch {
    throw new Error(`it looks like the policy pack's dependencies are not installed; try running npm install or yarn install in "${dir}"`);
  }
}

function packEnv(base: NodeJS.ProcessEnv, s: StackSettings): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  const set = (k: string, v: string) => {
    if (v !== '') env[k] = v;
  };
  set('PULUMI_CONFIG', JSON.stringify(s.config));
  for (const prefix of ['PULUMI_NODEJS_', 'PULUMI_']) {
    set(`${prefix}ORGANIZATION`, s.organization);
    set(`${prefix}PROJECT`, s.project);
    set(`${prefix}STACK`, s.stack);
    set(`${prefix}DRY_RUN`, String(s.dryRun));
  }
  return env;
}

/** Starts the pack at `path`; any failure is an error naming it. */
export async function launchPack(path: string, o: PackLaunchOptions): Promise<AnalyzerClient> {
  const dir = resolve(path);
  const label = `"${path}"`;
  try {
    const project = readPolicyProject(dir);
    if (project.runtime !== 'nodejs') throw new Error(`its runtime is "${project.runtime}"; stackyard runs nodejs policy packs only`);
    const runner = runnerOf(dir);
    const proc = await launchPlugin(
      { command: process.execPath, args: [runner], label: `${label} (analyzer)` },
      // run-policy-pack's arguments are `<engine-address> <pack-dir>`: the folder comes last, as RunPlugin puts it
      { engineAddress: o.engineAddress, cwd: dir, env: packEnv(o.env, o.settings), timeoutMs: o.launchMs ?? 60_000, onLog: o.onLog, trailingArgs: [dir] },
    );
    const client = AnalyzerClient.connect(proc, label, o.callMs ?? 120_000);
    client.yamlVersion = project.version;
    try {
      await client.handshake(o.engineAddress, dir);
      await client.configureStack(o.settings);
    } catch (err) {
      await client.close();
      throw err;
    }
    return client;
  } catch (err) {
    // as Pulumi: a policy project that cannot be read is its own error; anything else failed to start the pack
    const message = err instanceof Error ? err.message : String(err);
    const named = message.startsWith('failed to load Pulumi policy project') || message.startsWith(`policy pack ${label}`);
    throw new Error(named ? message : `policy pack ${label} failed to start: ${message}`);
  }
}
