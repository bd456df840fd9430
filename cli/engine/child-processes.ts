/**
 * Every process the engine starts (the program, provider plugins), so a hard stop (a second Ctrl-C) can kill them
 * before the CLI exits: plugins run in their own process group, so nothing else would stop them.
 */
import type { ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';

const SETPRIV = '/usr/bin/setpriv';
const canSetDeathSignal = process.platform === 'linux' && isExecutable(SETPRIV);

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The command line that starts `command` so the kernel kills it when the CLI dies, even by SIGKILL, which runs no
 * handler of ours (util-linux `setpriv --pdeathsig`, which then execs the command). Without it a plugin in its own
 * process group would outlive a killed CLI and keep its port and files. Elsewhere the command runs as it is.
 */
export function diesWithParent(command: string, args: readonly string[]): { command: string; args: string[] } {
  return canSetDeathSignal ? { command: SETPRIV, args: ['--pdeathsig', 'KILL', '--', command, ...args] } : { command, args: [...args] };
}

const live = new Set<ChildProcess>();

/** Registers a child until it exits. */
export function trackChild(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  child.once('error', () => live.delete(child));
}

/** Kills every live child at once (with its process group when it leads one); synchronous, for exit paths. */
export function killEngineChildren(): void {
  for (const child of live) {
    if (child.pid === undefined) continue;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  }
  live.clear();
}
