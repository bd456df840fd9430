import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * Who holds a storage lock file, recorded in the file itself, so a waiter can tell a live holder from a dead one
 * without waiting for the expiry: the pid, the host, the host's boot id, the process's start time as the kernel
 * counts it, and a random id of the process. A `serve` that was killed and restarted (in a container, often with the
 * very same pid) then finds its predecessor's locks stale at once, while a lock of another live process, here or on
 * another host sharing the folder, is honoured until it expires.
 */
export interface LockOwner {
  pid: number;
  host: string;
  /** `/proc/sys/kernel/random/boot_id` where there is one: a different boot means every holder of that boot is dead. */
  boot?: string;
  /** Field 22 of `/proc/<pid>/stat` (start time in clock ticks after boot): a reused pid has another one. */
  start?: string;
  /** Random per process: a lock with our pid but not our id was taken by an earlier process with the same pid. */
  instance: string;
}

export interface LockRecord extends LockOwner {
  expiresAt: number;
  nonce: string;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The kernel's start time of `pid` (Linux), or undefined where /proc is not there or the process is gone. */
export function processStart(pid: number | 'self'): string | undefined {
  const stat = readText(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  // The command name (field 2) is in parentheses and may hold spaces: count fields after its closing one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[19];
}

let self: LockOwner | undefined;

/**
 * This process as a lock holder (read once). Its random instance id is drawn here, not when the module loads: a
 * command that takes no lock then never loads `node:crypto` (the CLI bundle requires it on first use).
 */
export function lockOwner(): LockOwner {
  self ??= {
    pid: process.pid,
    host: hostname(),
    ...optional('boot', readText('/proc/sys/kernel/random/boot_id')?.trim()),
    ...optional('start', processStart('self')),
    instance: randomBytes(8).toString('hex'),
  };
  return self;
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value ? { [key]: value } : {}) as { [P in K]?: string };
}

/** Whether `pid` names a running process (a process of another user counts as running). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * Whether the holder recorded in a lock file is certainly gone, so the lock may be broken now rather than at its
 * expiry. Only this host's processes can be checked; a lock from another host is judged by its expiry alone.
 */
export function holderIsGone(holder: Partial<LockOwner>): boolean {
  const me = lockOwner();
  if (typeof holder.pid !== 'number' || holder.pid <= 0) return false;
  // Lock files of older versions name no host: they were judged by their pid, on the host that reads them.
  if (holder.host !== undefined && holder.host !== me.host) return false;
  if (holder.boot && me.boot && holder.boot !== me.boot) return true;
  if (holder.pid === me.pid) return holder.instance !== undefined && holder.instance !== me.instance;
  if (!alive(holder.pid)) return true;
  const start = holder.start && processStart(holder.pid);
  return Boolean(start && start !== holder.start);
}
