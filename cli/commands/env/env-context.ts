/** What every `env` command shares: the backend's environments, its default organization, and reading names and files. */
import { readFile } from 'node:fs/promises';
import { parsePath } from '../../../shared/esc/index.js';
import type { EnvironmentsBackend } from '../../backend/environments-backend.js';
import { resolveExisting, resolveNew, takeEnvironmentName, type EnvironmentArg } from '../../environments/refs.js';
import { UserError } from '../../output/errors.js';
import type { CommandContext } from '../context.js';

/** The environments of the backend the CLI is logged in to, and how names are read on it. */
export interface EscSession {
  envs: EnvironmentsBackend;
  defaultOrg: string;
  /** An existing environment named by `text` (relative to `base` when `@<version>` alone). */
  existing(text: string, base?: EnvironmentArg): Promise<EnvironmentArg>;
  /** A new environment's name. */
  fresh(text: string): Promise<EnvironmentArg>;
}

export async function escSession(ctx: CommandContext): Promise<EscSession> {
  const backend = await ctx.backend();
  const envs = backend.environments();
  const defaultOrg = await backend.defaultOrg();
  const warn = (message: string) => process.stderr.write(`${message}\n`);
  return {
    envs,
    defaultOrg,
    existing: (text, base) => resolveExisting(envs, text, defaultOrg, warn, base),
    fresh: async (text) => resolveNew(envs, text, defaultOrg, (await backend.whoami()).organizations, warn),
  };
}

/** The environment a command names (`--env` or its first argument), read as an existing one, and the arguments after it. */
export async function existingFromArgs(session: EscSession, opts: Record<string, unknown>, args: (string | undefined)[]) {
  const { name, rest } = takeEnvironmentName(opts.env, args);
  return { ref: await session.existing(name), rest };
}

/** Refuses a version where a command takes none (ESC's message). */
export function refuseVersion(ref: EnvironmentArg, command: string): void {
  if (ref.version !== '') throw new UserError(`the ${command} command does not accept versions`);
}

/** `-f <file>`: the file's text, or standard input for `-`. */
export async function readInput(file: string): Promise<string> {
  if (file !== '-') return readFile(file, 'utf8');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** `--path <property path>`: its parts (none when absent). */
export function takeVersionedPath(text: unknown): (string | number)[] {
  return typeof text === 'string' && text !== '' ? parsePath(text) : [];
}
