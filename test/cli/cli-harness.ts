/**
 * Runs the bundled CLI (`npm run build` first) as a child process in a sandbox: its own STACKYARD_HOME and HOME in
 * a temp folder, CI=true (so no prompts), and none of the caller's STACKYARD_* / PULUMI_* variables.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const REPO = resolve(import.meta.dirname, '../..');
export const CLI = join(REPO, 'dist/cli/stackyard.mjs');
export const TESTPROV_DIR = join(REPO, 'test/fixtures/providers/testprov');

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

const sandboxes = new Set<string>();

/** Removes every sandbox this test file made (call from `afterAll`). */
export function removeSandboxes(): void {
  for (const root of sandboxes) rmSync(root, { recursive: true, force: true });
  sandboxes.clear();
}

/** A sandbox: a home folder for the CLI and a place for projects. */
export class CliSandbox {
  readonly root = mkdtempSync(join(tmpdir(), 'stackyard-cli-'));
  readonly home = join(this.root, 'home');
  readonly env: NodeJS.ProcessEnv;

  constructor(extraEnv: NodeJS.ProcessEnv = {}) {
    sandboxes.add(this.root);
    mkdirSync(this.home);
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('STACKYARD_') && !k.startsWith('PULUMI_')));
    this.env = { ...clean, CI: 'true', HOME: this.home, STACKYARD_HOME: this.home, ...extraEnv };
  }

  /** A project folder with Pulumi.yaml (and any extra files); `node_modules` links to the repository's. */
  project(name: string, pulumiYaml: string, files: Record<string, string> = {}): string {
    const dir = join(this.root, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'Pulumi.yaml'), pulumiYaml);
    for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
    symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
    return dir;
  }

  /** Runs `stackyard …` in `cwd`; resolves with the exit status and output (never rejects on a non-zero exit). */
  run(cwd: string, args: string[], options: { env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<CliResult> {
    return runCli(cwd, args, { ...this.env, ...options.env }, options.input);
  }
}

export function runCli(cwd: string, args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => resolvePromise({ status, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

/** Polls `check` until it returns a value, or fails after `timeoutMs`. */
export async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Starts `stackyard serve` on a free port with `adminToken` as its administrator's token; resolves with its URL. */
export async function startServe(sandbox: CliSandbox, adminToken: string): Promise<{ url: string; serve: ChildProcess }> {
  const serve = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--runners', '0'], { env: { ...sandbox.env, STACKYARD_ADMIN_TOKEN: adminToken }, stdio: ['ignore', 'pipe', 'ignore'] });
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    serve.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const match = /serves the Pulumi service API at (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    serve.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${output}`)));
  });
  return { url, serve };
}

/** Stops a `serve` started by `startServe` and waits for it to exit. */
export async function stopServe(serve: ChildProcess): Promise<void> {
  if (serve.exitCode !== null || serve.signalCode !== null) return;
  const exited = new Promise((resolve) => serve.once('exit', resolve));
  serve.kill('SIGTERM');
  await exited;
}
