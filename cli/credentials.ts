/**
 * The CLI's own login state, `$STACKYARD_HOME/credentials.json` (mode 0600): the current backend URL and one access
 * token per service URL. Never Pulumi's files, so `stackyard` and `pulumi` logins do not interfere.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface Credentials {
  /** URL of the backend commands use: `file://…` for local storage, `http(s)://…` for a service. */
  current?: string;
  /** API tokens keyed by service URL. */
  accessTokens: Record<string, string>;
  /** What the service said about each token when it was last validated. */
  accounts: Record<string, { username: string; organizations?: string[]; lastValidatedAt: string; /** When an exchanged (OIDC) token expires. */ tokenExpiresAt?: string }>;
}

/** `$STACKYARD_HOME`, default `~/.stackyard`. */
export function stackyardHome(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.STACKYARD_HOME || join(homedir(), '.stackyard'));
}

/** The data folder `login --local` uses. */
export function localDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(stackyardHome(env), 'local');
}

/** The backend URL of `login --local`. */
export function localBackendUrl(env: NodeJS.ProcessEnv = process.env): string {
  return pathToFileURL(localDataDir(env)).href;
}

function credentialsPath(env: NodeJS.ProcessEnv): string {
  return join(stackyardHome(env), 'credentials.json');
}

export async function readCredentials(env: NodeJS.ProcessEnv = process.env): Promise<Credentials> {
  let text: string;
  try {
    // Read synchronously, like the other small files a command reads before it starts its work (the project file, its
    // parsed-YAML cache entry, the workspace file): an asynchronous read is four thread-pool round trips (open, stat,
    // read, close), and these reads come one after another on every start.
    text = readFileSync(credentialsPath(env), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { accessTokens: {}, accounts: {} };
    throw error;
  }
  const parsed = JSON.parse(text) as Partial<Credentials>;
  return {
    current: typeof parsed.current === 'string' ? parsed.current : undefined,
    accessTokens: parsed.accessTokens ?? {},
    accounts: parsed.accounts ?? {},
  };
}

/** Writes atomically with mode 0600 (a temp file renamed over the old one), so a crash never leaves half a file. */
export async function writeCredentials(credentials: Credentials, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  await writePrivateJson(credentialsPath(env), credentials);
}

/** Writes JSON under `$STACKYARD_HOME` readable only by the user, atomically. */
export async function writePrivateJson(path: string, value: unknown): Promise<void> {
  await fs.mkdir(join(path, '..'), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await fs.writeFile(temp, `${JSON.stringify(value, null, 4)}\n`, { mode: 0o600 });
  await fs.rename(temp, path);
}
