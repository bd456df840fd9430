/**
 * Plans that cannot go stale (beyond Pulumi): a plan records the stack version and state it was computed from and
 * digests of the program and the configuration; `up --plan` refuses a plan the stack, the program or the
 * configuration has moved on from, before anything runs (docs/plans.md).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { SecretsCrypter } from '../state/deployment.js';
import type { StackConfig } from '../config/program-config.js';
import type { PlanOrigin } from './plan-types.js';

/** The stack's latest version (its last update), as history tells it. */
export interface StackHead {
  version: number;
  /** Login of whoever ran it. */
  by?: string;
  /** Epoch seconds it ended (or started). */
  at?: number;
}

/** What a plan is checked against: the stack, state, program and configuration now. */
export interface PlanSubject {
  head: StackHead | undefined;
  /** The state as `stack export` gives it (`undefined` for a stack without one). */
  state: unknown;
  programDir: string;
  config: StackConfig;
  /** Files left out of the program's digest (the plan file itself). */
  excluded?: readonly string[];
}

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

/** sha256 of a deployment's resources and pending operations (what changes with each update, not its timestamp). */
export function stateDigest(state: unknown): string {
  const d = (state as { deployment?: { resources?: unknown; pending_operations?: unknown } } | undefined)?.deployment;
  return sha256(JSON.stringify({ resources: d?.resources ?? [], pending: d?.pending_operations ?? [] }));
}

/** sha256 over the program's files (path and content), leaving out dependencies, VCS data and stack config files. */
export function programDigest(dir: string, excluded: readonly string[] = []): string {
  const skip = new Set(excluded.map((f) => resolve(f)));
  const hash = createHash('sha256');
  const walk = (at: string) => {
    for (const name of readdirSync(at).sort()) {
      if (name === 'node_modules' || name === '.git' || /^Pulumi\..+\.ya?ml$/.test(name)) continue;
      const path = join(at, name);
      if (skip.has(resolve(path))) continue;
      const info = statSync(path);
      if (info.isDirectory()) walk(path);
      else if (info.isFile()) hash.update(`${relative(dir, path)}\0`).update(readFileSync(path)).update('\0');
    }
  };
  walk(dir);
  return hash.digest('hex');
}

/** sha256 of the configuration, secret values included (so the digest is stored encrypted). */
export function configDigest(config: StackConfig): string {
  return sha256(JSON.stringify(Object.keys(config).sort().map((k) => [k, config[k]!.value, config[k]!.secret])));
}

/** The origin a new plan records; the digests of program and config are encrypted with the stack's key. */
export async function planOrigin(subject: PlanSubject, crypter: SecretsCrypter): Promise<PlanOrigin> {
  const [program, config] = await crypter.encrypt([programDigest(subject.programDir, subject.excluded), configDigest(subject.config)]);
  return { ...(subject.head ? { stackVersion: subject.head.version } : {}), checkpointDigest: stateDigest(subject.state), programDigest: program!, configDigest: config! };
}

function headText(head: StackHead): string {
  const who = head.by ? ` by ${head.by}` : '';
  const when = head.at ? ` at ${new Date(head.at * 1000).toISOString()}` : '';
  return who || when ? ` (update${who}${when})` : '';
}

const AGAIN = 'run preview --save-plan again';

/**
 * Why a plan is stale, or undefined when the stack, its state, the program and the configuration are those it was
 * made from. A plan without an origin (one `pulumi` wrote) cannot be checked and is not refused.
 */
export async function planStaleness(origin: PlanOrigin | undefined, subject: PlanSubject, crypter: SecretsCrypter): Promise<string | undefined> {
  if (!origin) return undefined;
  const now = subject.head?.version;
  if (origin.stackVersion !== now && now !== undefined) {
    return `the plan was made at version ${origin.stackVersion ?? 0}; the stack is at version ${now}${headText(subject.head!)}: ${AGAIN}`;
  }
  if (origin.checkpointDigest !== stateDigest(subject.state)) return `the stack's state changed since the plan was made: ${AGAIN}`;
  const [program, config] = await crypter.decrypt([origin.programDigest, origin.configDigest]);
  if (config !== configDigest(subject.config)) return `the stack's configuration changed since the plan was made: ${AGAIN}`;
  if (program !== programDigest(subject.programDir, subject.excluded)) return `the program changed since the plan was made: ${AGAIN}`;
  return undefined;
}
