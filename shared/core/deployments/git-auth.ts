/**
 * `sourceContext.git.gitAuth` of a run's settings, opened for its runner (Pulumi's `GitAuthConfig`,
 * apitype/deployments.go): an SSH private key (with its optional passphrase), a personal access token, or a user
 * name and password. When several are set, one counts, in Pulumi's order: SSH first, then the access token, then
 * basic auth. The values are sealed under the stack's key in storage (settings.ts) and opened only here, for the
 * run's own runner (runner-service.ts `runBrief`).
 */
import { InvalidInputError } from '../errors.js';
import type { StackRecord } from '../../ports/stack-store.js';
import type { StackKeyring } from '../kernel/deps.js';

/** The credential the runner clones with: never stored opened, never logged. */
export type GitAuth =
  | { kind: 'ssh'; privateKey: string; passphrase?: string }
  /** An access token is sent as basic auth under the user name `git`, as Pulumi's Automation API does. */
  | { kind: 'basic'; userName: string; password: string };

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The user name a personal access token goes with (Automation API's `git`; hosts read only the token). */
export const ACCESS_TOKEN_USER = 'git';

/** Refuses a `gitAuth` that names a mode without the values it takes (checked when settings are saved). */
export function validateGitAuth(gitAuth: unknown): void {
  if (gitAuth === undefined) return;
  if (!isObject(gitAuth)) throw new InvalidInputError('sourceContext.git.gitAuth must be an object: { accessToken }, { sshAuth } or { basicAuth }.');
  for (const key of Object.keys(gitAuth)) {
    if (!['accessToken', 'sshAuth', 'basicAuth'].includes(key)) {
      throw new InvalidInputError(`Unknown sourceContext.git.gitAuth field '${key.slice(0, 64)}': expected accessToken, sshAuth or basicAuth.`);
    }
  }
  const { sshAuth, basicAuth } = gitAuth;
  if (sshAuth !== undefined && !(isObject(sshAuth) && sshAuth.sshPrivateKey !== undefined)) {
    throw new InvalidInputError('sourceContext.git.gitAuth.sshAuth takes sshPrivateKey (and an optional password).');
  }
  if (basicAuth !== undefined && !(isObject(basicAuth) && basicAuth.userName !== undefined && basicAuth.password !== undefined)) {
    throw new InvalidInputError('sourceContext.git.gitAuth.basicAuth takes both userName and password.');
  }
}

/** The sealed or plain value at `holder[key]` (a settings `SecretValue` after sealing: a string or `{ ciphertext }`). */
function secretAt(holder: Json | undefined, key: string): string | Uint8Array | undefined {
  const value = holder?.[key];
  if (typeof value === 'string') return value;
  if (isObject(value) && typeof value.ciphertext === 'string') return Buffer.from(value.ciphertext, 'base64');
  return undefined;
}

/** Opens the one credential `gitAuth` chooses (`undefined` when the settings have none). */
export async function openGitAuth(keys: StackKeyring, stack: StackRecord, settings: Json): Promise<GitAuth | undefined> {
  const source = isObject(settings.sourceContext) ? settings.sourceContext : undefined;
  const git = isObject(source?.git) ? source.git : undefined;
  const gitAuth = isObject(git?.gitAuth) ? git.gitAuth : undefined;
  if (!gitAuth) return undefined;
  const ssh = isObject(gitAuth.sshAuth) ? gitAuth.sshAuth : undefined;
  const basic = isObject(gitAuth.basicAuth) ? gitAuth.basicAuth : undefined;
  const open = async (values: (string | Uint8Array | undefined)[]): Promise<(string | undefined)[]> => {
    const sealed = values.filter((value): value is Uint8Array => value instanceof Uint8Array);
    const opened = sealed.length > 0 ? await keys.decryptForStack(stack, sealed) : [];
    let next = 0;
    return values.map((value) => (value instanceof Uint8Array ? Buffer.from(opened[next++]!).toString('utf8') : value));
  };
  const privateKey = secretAt(ssh, 'sshPrivateKey');
  if (privateKey !== undefined) {
    const [key, passphrase] = await open([privateKey, secretAt(ssh, 'password')]);
    return { kind: 'ssh', privateKey: key!, ...(passphrase ? { passphrase } : {}) };
  }
  const accessToken = secretAt(gitAuth, 'accessToken');
  if (accessToken !== undefined) {
    const [token] = await open([accessToken]);
    return { kind: 'basic', userName: ACCESS_TOKEN_USER, password: token! };
  }
  const userName = secretAt(basic, 'userName');
  const password = secretAt(basic, 'password');
  if (userName === undefined || password === undefined) return undefined;
  const [user, pass] = await open([userName, password]);
  return { kind: 'basic', userName: user!, password: pass! };
}
