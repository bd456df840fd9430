/**
 * Programs in every runtime but `nodejs` run through their language plugin, `pulumi-language-<runtime>`, over
 * Pulumi's LanguageRuntime protocol, as `pulumi` runs them: the plugin is started with the engine's address, asked
 * for its info and the packages the program needs, then told to Run the program against the resource monitor.
 */
import type * as grpcTypes from '@grpc/grpc-js';
import { PluginAcquisitionError, type PluginAcquirer } from '../../../plugins/acquire.js';
import { ambientPluginsEnabled, MissingPluginError, resolvePlugin } from '../../../plugins/resolve.js';
import type { PluginSpec, ProjectPlugin } from '../../../plugins/types.js';
import { parseTolerant } from '../../../plugins/version.js';
import { callUnary, grpcMessage, hasCode } from '../../rpc/grpc-util.js';
import type { StackConfig } from '../../config/program-config.js';
import { launchPlugin, type PluginProcess } from '../plugin-host.js';
import { emptyproto, grpc, langproto, langrpc, structproto } from '../../rpc/proto.js';
import { missingLanguagePluginHint } from '../../../project/runtimes.js';

type Client = InstanceType<typeof langrpc.LanguageRuntimeClient>;

/** The program as the language plugin sees it (`pulumirpc.ProgramInfo`). */
export interface LanguageProgramInfo {
  rootDirectory: string;
  programDirectory: string;
  entryPoint: string;
  options: Record<string, unknown>;
}

/** How to start a language plugin. */
export interface LanguagePluginOptions {
  runtime: string;
  engineAddress: string;
  rootDir: string;
  programDir: string;
  env: NodeJS.ProcessEnv;
  projectPlugins?: readonly ProjectPlugin[];
  acquirer?: PluginAcquirer;
  onLog?: (line: string) => void;
  onWarning?: (message: string) => void;
  launchTimeoutMs?: number;
  /** `--logflow`'s arguments for the plugin. */
  loggingArgs?: readonly string[];
  /** Record the run in the cache's last-use marker (default); inspections (`about`, `plugin ls --project`) do not. */
  markUsed?: boolean;
}

const CALL_MS = 120_000;
/** Run takes as long as the program does; the engine's own cancellation stops it. */
const RUN_MS = 7 * 24 * 3_600_000;

function programInfo(info: LanguageProgramInfo): InstanceType<typeof langproto.ProgramInfo> {
  return new langproto.ProgramInfo()
    .setRootDirectory(info.rootDirectory)
    .setProgramDirectory(info.programDirectory)
    .setEntryPoint(info.entryPoint)
    .setOptions(structproto.Struct.fromJavaScript(info.options as Record<string, never>));
}

/** Finds (and, when missing, installs) `pulumi-language-<runtime>`; a missing one is reported with how to get it. */
async function findLanguagePlugin(o: LanguagePluginOptions): Promise<string> {
  const spec: PluginSpec = { kind: 'language', name: o.runtime.replaceAll('/', '_') };
  const resolveOpts = { env: o.env, projectPlugins: o.projectPlugins, projectDir: o.rootDir, markUsed: o.markUsed ?? true };
  let found = resolvePlugin(spec, resolveOpts);
  try {
    if (!found && o.acquirer?.enabled) {
      await o.acquirer.ensure(spec);
      found = resolvePlugin(spec, resolveOpts);
    }
    if (!found) throw new MissingPluginError(spec, ambientPluginsEnabled(o.env));
  } catch (err) {
    // reported like any plugin that could not be acquired: one clear line with the install command
    const reason = (err instanceof Error ? err.message : String(err)).replace(/\.$/, '');
    throw new PluginAcquisitionError([new Error(`${reason}.\n${missingLanguagePluginHint(o.runtime)}`)]);
  }
  if (found.source === 'ambient') o.onWarning?.(`using pulumi-language-${spec.name} from $PATH at ${found.path}`);
  return found.path;
}

/** A running language plugin. */
export class LanguagePlugin {
  private constructor(
    private readonly client: Client,
    private readonly proc: PluginProcess,
    readonly label: string,
  ) {}

  /** Finds, starts and greets the plugin. */
  static async start(o: LanguagePluginOptions): Promise<LanguagePlugin> {
    const path = await findLanguagePlugin(o);
    const label = `language-${o.runtime}`;
    const proc = await launchPlugin({ command: path, args: [], label }, { engineAddress: o.engineAddress, cwd: o.programDir, env: o.env, timeoutMs: o.launchTimeoutMs, onLog: o.onLog, loggingArgs: o.loggingArgs });
    const client = new langrpc.LanguageRuntimeClient(`127.0.0.1:${proc.port}`, grpc.credentials.createInsecure());
    const plugin = new LanguagePlugin(client, proc, label);
    const hello = new langproto.LanguageHandshakeRequest().setEngineAddress(o.engineAddress).setRootDirectory(o.rootDir).setProgramDirectory(o.programDir);
    try {
      await callUnary(client.handshake, client, hello, CALL_MS);
    } catch (err) {
      // Plugins older than the handshake take the engine address from argv only.
      if (!hasCode(err, grpc.status.UNIMPLEMENTED)) {
        await plugin.close();
        throw new Error(`${label}: Handshake failed: ${grpcMessage(err)}`);
      }
    }
    return plugin;
  }

  /** The plugin's version (GetPluginInfo), if it reports one. */
  async version(): Promise<string | undefined> {
    const info = await callUnary(this.client.getPluginInfo, this.client, new emptyproto.Empty(), CALL_MS);
    return info.getVersion() || undefined;
  }

  /** The plugins the program needs: GetRequiredPackages, or GetRequiredPlugins from older plugins. */
  async requiredPlugins(info: LanguageProgramInfo): Promise<PluginSpec[]> {
    type Dep = { getKind(): string; getName(): string; getVersion(): string; getServer(): string; getChecksumsMap(): { forEach(cb: (v: Uint8Array | string, k: string) => void): void } };
    const toSpec = (d: Dep): PluginSpec => {
      const checksums: Record<string, string> = {};
      d.getChecksumsMap().forEach((v, k) => (checksums[k] = typeof v === 'string' ? Buffer.from(v, 'base64').toString('hex') : Buffer.from(v).toString('hex')));
      const version = d.getVersion() ? parseTolerant(d.getVersion()) : undefined;
      return {
        kind: (d.getKind() || 'resource') as PluginSpec['kind'],
        name: d.getName(),
        ...(version ? { version } : {}),
        ...(d.getServer() ? { pluginDownloadURL: d.getServer() } : {}),
        ...(Object.keys(checksums).length ? { checksums } : {}),
      };
    };
    try {
      const res = await callUnary(this.client.getRequiredPackages, this.client, new langproto.GetRequiredPackagesRequest().setInfo(programInfo(info)), CALL_MS);
      return res.getPackagesList().map((p) => toSpec(p as unknown as Dep));
    } catch (err) {
      if (!hasCode(err, grpc.status.UNIMPLEMENTED)) throw new Error(`${this.label}: GetRequiredPackages failed: ${grpcMessage(err)}`);
    }
    const req = new langproto.GetRequiredPluginsRequest().setProject('deprecated').setPwd(info.programDirectory).setProgram(info.entryPoint).setInfo(programInfo(info));
    try {
      const res = await callUnary(this.client.getRequiredPlugins, this.client, req, CALL_MS);
      return res.getPluginsList().map((p) => toSpec(p as unknown as Dep));
    } catch (err) {
      throw new Error(`${this.label}: GetRequiredPlugins failed: ${grpcMessage(err)}`);
    }
  }

  /** Runs the program; resolves to an error message when it failed, `bail` when it already reported its error. */
  async run(o: {
    info: LanguageProgramInfo;
    project: string;
    stack: string;
    organization?: string;
    monitorAddress: string;
    config: StackConfig;
    dryRun: boolean;
    parallel: number;
  }): Promise<{ error?: string; bail: boolean }> {
    const req = new langproto.RunRequest()
      .setProject(o.project)
      .setStack(o.stack)
      .setPwd(o.info.programDirectory)
      .setProgram(o.info.entryPoint)
      .setDryrun(o.dryRun)
      .setParallel(o.parallel)
      .setMonitorAddress(o.monitorAddress)
      .setOrganization(o.organization ?? 'organization')
      .setConfigsecretkeysList(Object.entries(o.config).filter(([, v]) => v.secret).map(([k]) => k))
      .setInfo(programInfo(o.info));
    const config = req.getConfigMap();
    for (const [key, v] of Object.entries(o.config)) config.set(key, v.value);
    try {
      const res = await callUnary(this.client.run, this.client, req, RUN_MS);
      return { error: res.getError() || undefined, bail: res.getBail() };
    } catch (err) {
      const output = this.proc.output().trim();
      return { error: `${this.label}: Run failed: ${grpcMessage(err)}${output ? `\n${output.slice(-2000)}` : ''}`, bail: false };
    }
  }

  /** InstallDependencies: streams the plugin's output to `write`. */
  installDependencies(
    info: LanguageProgramInfo,
    o: { isTerminal: boolean; useLanguageVersionTools: boolean },
    write: (stream: 'stdout' | 'stderr', chunk: Buffer) => void,
  ): Promise<void> {
    const req = new langproto.InstallDependenciesRequest().setIsTerminal(o.isTerminal).setUseLanguageVersionTools(o.useLanguageVersionTools).setInfo(programInfo(info));
    return new Promise((resolve, reject) => {
      const stream = this.client.installDependencies(req) as grpcTypes.ClientReadableStream<InstanceType<typeof langproto.InstallDependenciesResponse>>;
      stream.on('data', (m: InstanceType<typeof langproto.InstallDependenciesResponse>) => {
        const out = m.getStdout_asU8();
        const err = m.getStderr_asU8();
        if (out.length) write('stdout', Buffer.from(out));
        if (err.length) write('stderr', Buffer.from(err));
      });
      stream.on('error', (err) => reject(new Error(`${this.label}: InstallDependencies failed: ${grpcMessage(err)}`)));
      stream.on('end', () => resolve());
    });
  }

  /** Asks the plugin to stop the program (Cancel); errors are ignored, the process is killed afterwards anyway. */
  async cancel(): Promise<void> {
    await callUnary(this.client.cancel, this.client, new emptyproto.Empty(), 5_000).catch(() => undefined);
  }

  /** Closes the connection and stops the process. */
  async close(): Promise<void> {
    this.client.close();
    await this.proc.kill();
  }
}
