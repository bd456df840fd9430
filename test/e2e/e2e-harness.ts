/**
 * End-to-end runs: the bundled CLI (`node dist/cli/stackyard.mjs`, `npm run build` first) as child processes against
 * `stackyard serve` child processes, on local storage or on the AWS stand-ins. Each project gets its own test-provider
 * world, and runs with a lease of a few seconds so crashed runs free their stack quickly.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { startServe, type ServeProcess, type ServeStart } from '../api/serve-process.js';
import { CLI, CliSandbox, REPO, TESTPROV_DIR, type CliResult } from '../cli/cli-harness.js';

export const SIG_KEY = '4dabf18193072939515e22adb298388d';

export interface ExportedResource {
  urn: string;
  type: string;
  custom?: boolean;
  id?: string;
  delete?: boolean;
  protect?: boolean;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}

export interface Exported {
  deployment: {
    resources?: ExportedResource[];
    pending_operations?: { type: string; resource: { urn: string } }[];
  };
}

/** The name part of a URN. */
export const nameOf = (urn: string) => urn.slice(urn.lastIndexOf('::') + 2);

/** A short lease, renewed every half second: a killed run frees its stack within about two seconds. */
export const SHORT_LEASE = { STACKYARD_LEASE_SECONDS: '2', STACKYARD_LEASE_RENEW_SECONDS: '0.5' };

/** A project on the service, with its own test-provider world and call log. */
export class E2eProject {
  readonly world: string;
  readonly log: string;
  readonly env: NodeJS.ProcessEnv;

  constructor(
    readonly sandbox: CliSandbox,
    readonly dir: string,
    env: NodeJS.ProcessEnv,
  ) {
    this.world = join(dir, 'world');
    this.log = join(dir, 'provider.log');
    mkdirSync(this.world);
    this.env = { TESTPROV_WORLD: this.world, TESTPROV_LOG: this.log, ...env };
  }

  cli(...args: string[]): Promise<CliResult> {
    return this.sandbox.run(this.dir, args, { env: this.env });
  }

  /** Starts `stackyard …` (in its own process group, so nothing sent to the test runner's group reaches it). */
  spawn(args: string[]): RunningCli {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: this.dir,
      env: { ...this.sandbox.env, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    return new RunningCli(child);
  }

  async export(): Promise<Exported> {
    const out = await this.cli('stack', 'export');
    if (out.status !== 0) throw new Error(`stack export failed: ${out.stderr}`);
    return JSON.parse(out.stdout) as Exported;
  }

  /** The provider calls logged so far (`create`, `read`, `update`, `delete`), in order. */
  providerCalls(): { op: string; urn: string; id?: string }[] {
    if (!existsSync(this.log)) return [];
    return readFileSync(this.log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { op: string; urn: string; id?: string });
  }
}

/** Every process below `root` in the process tree (from `ps`), children before their own children. */
function descendantsOf(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const line of execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' }).split('\n')) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number);
    if (pid && ppid) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  const found: number[] = [];
  for (let queue = [root]; queue.length > 0; ) {
    const next = children.get(queue.shift()!) ?? [];
    found.push(...next);
    queue.push(...next);
  }
  return found;
}

/** A CLI process started with `E2eProject.spawn`. */
export class RunningCli {
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;

  constructor(readonly child: ChildProcess) {
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (this.stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
    this.exited = new Promise((resolve) => child.once('close', (code) => resolve(code)));
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /**
   * SIGKILL to the CLI and every process under it, at once, like a crash of the machine: the engine starts provider
   * plugins in their own process groups, so they are found through the process tree rather than the CLI's group.
   */
  async kill(): Promise<void> {
    const cli = this.child.pid!;
    // Frozen first, so it cannot start another child between listing the tree and the kill.
    try {
      process.kill(cli, 'SIGSTOP');
    } catch {
      // Already gone.
    }
    for (const pid of [cli, ...descendantsOf(cli)]) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    await this.exited;
  }
}

/**
 * A CLI sandbox logged in either to a `stackyard serve` as its administrator, or (`'cli-local'`) straight to local
 * storage with `stackyard login --local`, no server at all.
 */
export class E2eService {
  private constructor(
    readonly serve: ServeProcess | undefined,
    readonly sandbox: CliSandbox,
    /** The organization stacks are created in (`admin` on serve, `organization` on local storage, as Pulumi's). */
    readonly org: string,
  ) {}

  static async start(options: ServeStart | 'cli-local', sandboxEnv: NodeJS.ProcessEnv = {}): Promise<E2eService> {
    const sandbox = new CliSandbox(sandboxEnv);
    if (options === 'cli-local') {
      const login = await sandbox.run(sandbox.root, ['login', '--local']);
      if (login.status !== 0) throw new Error(`login --local failed: ${login.stderr}`);
      const whoami = await sandbox.run(sandbox.root, ['whoami', '--verbose']);
      const org = /^Organizations: (\S+)/m.exec(whoami.stdout)?.[1];
      if (!org) throw new Error(`whoami --verbose named no organization: ${whoami.stdout}`);
      return new E2eService(undefined, sandbox, org);
    }
    const serve = await startServe(options);
    const login = await sandbox.run(sandbox.root, ['login', serve.url], { env: { STACKYARD_ACCESS_TOKEN: serve.adminToken } });
    if (login.status !== 0) {
      await serve.stop();
      throw new Error(`login failed: ${login.stderr}`);
    }
    return new E2eService(serve, sandbox, 'admin');
  }

  /** A project whose program is `programDir/index.js` (test/fixtures/programs/… or test/e2e/fixtures/…), with a stack `stack`. */
  async project(name: string, programDir: string, stack: string, env: NodeJS.ProcessEnv = {}): Promise<E2eProject> {
    const dir = this.sandbox.project(name, `name: ${name}\nruntime: nodejs\nplugins:\n  providers:\n    - name: testprov\n      path: ${TESTPROV_DIR}\n`);
    copyFileSync(join(REPO, programDir, 'index.js'), join(dir, 'index.js'));
    const project = new E2eProject(this.sandbox, dir, env);
    const init = await project.cli('stack', 'init', stack);
    if (init.status !== 0) throw new Error(`stack init failed: ${init.stderr}`);
    return project;
  }

  async stop(): Promise<void> {
    await this.serve?.stop();
  }
}
