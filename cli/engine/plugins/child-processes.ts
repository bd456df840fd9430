/**
 * Every process the engine starts (the program, provider plugins), so that none outlives the CLI:
 * - each runs in a process group of its own (a terminal's Ctrl-C reaches only the CLI, which stops them in order),
 *   and stopping one signals its whole group, so a plugin behind a wrapper script that does not `exec` goes too;
 * - a guard process (`/bin/sh`, started once, in its own session) is told each group as it starts and ends; when the
 *   CLI dies by any means, even SIGKILL, the kernel closes the guard's stdin and the guard kills the groups still
 *   listed, with their grandchildren;
 * - each also gets `setpriv --pdeathsig KILL`, so it dies with the CLI even if the guard could not start.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';

const SETPRIV = '/usr/bin/setpriv';
const SHELL = '/bin/sh';
const canSetDeathSignal = process.platform === 'linux' && isExecutable(SETPRIV);
const canGuard = process.platform !== 'win32' && isExecutable(SHELL);

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
 * handler of ours (util-linux `setpriv --pdeathsig`, which then execs the command). Elsewhere the command runs as it
 * is.
 */
export function diesWithParent(command: string, args: readonly string[]): { command: string; args: string[] } {
  return canSetDeathSignal ? { command: SETPRIV, args: ['--pdeathsig', 'KILL', '--', command, ...args] } : { command, args: [...args] };
}

/**
 * The guard's script: `+<pgid>` lines add a group, `-<pgid>` lines drop it; at end of input (the CLI is gone, or
 * closed it) every group still listed gets SIGKILL. It ignores the signals a terminal or a process group sends.
 */
const GUARD_SCRIPT = `trap '' INT TERM HUP QUIT
groups=' '
while IFS= read -r line; do
  case "$line" in
    +*) groups="$groups\${line#+} " ;;
    -*) kept=' '; for g in $groups; do [ "$g" = "\${line#-}" ] || kept="$kept$g "; done; groups=$kept ;;
  esac
done
for g in $groups; do kill -s KILL -- "-$g" 2>/dev/null; done
`;

let guard: ChildProcess | undefined;

/** Tells the guard a line, starting the guard on first use; a guard that is gone is not replaced. */
function tellGuard(line: string): void {
  if (!canGuard) return;
  if (!guard) {
    guard = spawn(SHELL, ['-c', GUARD_SCRIPT], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
    guard.on('error', () => undefined);
    guard.stdin!.on('error', () => undefined);
    // The guard must never keep the CLI alive: it lives exactly as long as the CLI holds its stdin open.
    guard.unref();
    (guard.stdin as unknown as { unref?: () => void }).unref?.();
  }
  if (guard.stdin?.writable) guard.stdin.write(`${line}\n`);
}

const live = new Set<ChildProcess>();

/** Registers a child, which leads a process group of its own (spawned `detached`), until it exits. */
export function trackChild(child: ChildProcess): void {
  live.add(child);
  const pid = child.pid;
  if (pid !== undefined) tellGuard(`+${pid}`);
  const forget = () => {
    live.delete(child);
    // Once the leader is gone its group id may be reused, so the guard must not kill it any more.
    if (pid !== undefined) tellGuard(`-${pid}`);
  };
  child.once('exit', forget);
  child.once('error', () => live.delete(child));
}

/** Sends `signal` to a child's whole process group (falling back to the child alone). */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

/** Kills every live child at once, with its process group; synchronous, for exit paths. */
export function killEngineChildren(): void {
  for (const child of live) signalGroup(child, 'SIGKILL');
  live.clear();
}
