/**
 * The npm runs of policy packs: `npm pack` for the tarball `policy publish` uploads (Pulumi's `npm.Pack`: the folder's
 * `files`/`.npmignore` rules and `package/` prefix; the file it names read, then removed), and `npm install` of a
 * pack's dependencies (after `policy new`, and for a required pack once downloaded).
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The folder holding `PulumiPolicy.yaml`: `dir` or the nearest one above it (Pulumi's `DetectPolicyPackPathFrom`). */
export function findPolicyPackRoot(dir: string): string | undefined {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, 'PulumiPolicy.yaml'))) return at;
    if (dirname(at) === at) return undefined;
  }
}

/** `npm pack --loglevel=error` in `dir`; its progress goes to `onOutput`. */
export async function npmPack(dir: string, env: NodeJS.ProcessEnv, onOutput: (text: string) => void): Promise<Buffer> {
  let stdout: string;
  try {
    const result = await run('npm', ['pack', '--loglevel=error'], { cwd: dir, env, maxBuffer: 16 * 1024 * 1024 });
    stdout = result.stdout;
    if (result.stderr) onOutput(result.stderr);
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`could not publish policies because of error running npm pack: ${(e.stderr || e.message).trim()}`);
  }
  // npm prints the tarball's name last (a `prepack` script may print before it)
  const name = stdout.trim().split('\n').pop()!.trim();
  const file = join(dir, name);
  try {
    return readFileSync(file);
  } catch (err) {
    throw new Error(`'npm pack' completed successfully but the package .tgz file was not generated: ${(err as Error).message}`);
  } finally {
    rmSync(file, { force: true });
  }
}

/** `npm install` in `dir` (the environment's npm settings apply: registry, `offline` …); fails with npm's output. */
export async function npmInstall(dir: string, env: NodeJS.ProcessEnv): Promise<void> {
  try {
    await run('npm', ['install', '--loglevel=error', '--no-audit', '--no-fund'], { cwd: dir, env, maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string; message: string };
    throw new Error(`installing dependencies: npm install failed in ${dir}: ${(e.stderr || e.stdout || e.message).trim()}`);
  }
}
