import { spawn, type ChildProcess } from 'node:child_process';
import { CLI } from '../cli/cli-harness.js';
import { freePort } from '../support/processes.js';

/**
 * Starts the bundled `serve` on `dataDir` with `env` (added to this process's), resolving once it prints its login
 * line. Spawned directly, not through spawnTracked's guard, so a SIGKILL reaches the server process itself; the
 * caller stops it.
 */
export async function startKillableServe(dataDir: string, env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [CLI, 'serve', '--port', String(port), '--data-dir', dataDir, '--runners', '0'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.includes('Log in with:')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`serve exited during start-up (${code}): ${out}`)));
  });
  return { child, url: `http://127.0.0.1:${port}` };
}
