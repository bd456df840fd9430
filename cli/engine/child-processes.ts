/**
 * Every process the engine starts (the program, provider plugins), so a hard stop (a second Ctrl-C) can kill them
 * before the CLI exits: plugins run in their own process group, so nothing else would stop them.
 */
import type { ChildProcess } from 'node:child_process';

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
