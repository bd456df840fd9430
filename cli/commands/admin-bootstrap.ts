import { randomBytes } from 'node:crypto';
import { userInfo } from 'node:os';
import { createAwsStorage, hashToken } from '../../shared/adapters/aws/index.js';
import { ConflictError, InvalidInputError, NotFoundError } from '../../shared/core/errors.js';
import { validateOrgName } from '../../shared/core/names.js';
import { API_TOKEN_PREFIX } from '../../shared/core/identity/identity-service.js';
import type { IdentityStore, UserRecord } from '../../shared/ports/identity-store.js';

/** Options of `stackyard admin bootstrap`. */
export interface AdminBootstrapOptions {
  /** The deployment's DynamoDB table (the `TableName` stack output). */
  table: string;
  /** Administrator login; defaults to the operating-system user name. */
  user?: string;
}

/** What {@link bootstrapAdministrator} created. The token exists nowhere else: show it once, then drop it. */
export interface BootstrapResult {
  login: string;
  tokenId: string;
  token: string;
}

/** Injected for tests; production uses the system clock and `crypto.randomBytes`. */
export interface BootstrapDeps {
  now?: () => number;
  random?: (bytes: number) => Buffer;
}

const DESCRIPTION = 'stackyard admin bootstrap';

/**
 * Makes `login` an administrator with a personal organization of the same name (Pulumi's default organization is
 * the user's login) and issues a fresh API token, storing only its SHA-256 hash. Safe to run again: the user and
 * organization are re-applied, earlier tokens stay valid, and each run adds one token.
 */
export async function bootstrapAdministrator(
  identity: IdentityStore,
  login: string,
  deps: BootstrapDeps = {},
): Promise<BootstrapResult> {
  const now = deps.now ?? Date.now;
  const random = deps.random ?? randomBytes;
  try {
    validateOrgName(login);
  } catch {
    throw new InvalidInputError(
      `'${login}' cannot be an administrator login: it also names the user's default organization, so it must be ` +
        '3 to 40 letters, digits, hyphens or underscores. Pass another one with --user.',
    );
  }

  const createdAt = now();
  const existing = await identity.getUser(login).catch((error: unknown) => {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  });
  const user: UserRecord = existing ? { ...existing, admin: true } : { login, name: login, admin: true, createdAt };
  await identity.putUser(user);
  await ignoreConflict(identity.createOrg({ name: login, createdAt }));
  await ignoreConflict(identity.addMember({ org: login, login, role: 'admin' }));

  const token = API_TOKEN_PREFIX + random(32).toString('base64url');
  const tokenId = `bootstrap-${random(6).toString('hex')}`;
  await identity.putToken({ id: tokenId, tokenHash: hashToken(token), login, description: DESCRIPTION, createdAt });
  return { login, tokenId, token };
}

async function ignoreConflict(write: Promise<unknown>): Promise<void> {
  try {
    await write;
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
  }
}

/** Where the command writes: the token alone on stdout (so `$(…)` captures just it), everything else on stderr. */
export interface CommandIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
}

/**
 * `stackyard admin bootstrap --table <name> [--user <login>]`: writes the first administrator and token into a
 * deployed table with the caller's own AWS credentials (the SDK's usual chain: env, profile, SSO, instance role).
 */
export async function runAdminBootstrap(
  options: AdminBootstrapOptions,
  io: CommandIo,
  deps: BootstrapDeps = {},
): Promise<BootstrapResult> {
  if (!options.table) throw new InvalidInputError('Pass the table name: --table <TableName output of the stack>.');
  const login = options.user ?? userInfo().username;
  // Only the identity store is used; the checkpoint bucket and KMS key are never touched by this command.
  const storage = createAwsStorage({
    table: options.table,
    bucket: 'not-used-by-admin-bootstrap',
    kmsKeyId: 'not-used-by-admin-bootstrap',
    now: deps.now,
  });
  try {
    const result = await bootstrapAdministrator(storage.identity, login, deps);
    io.stderr(`Administrator '${result.login}' is ready in table ${options.table}; token id ${result.tokenId}.`);
    io.stderr('The token below is shown once and stored nowhere: keep it in your password manager.');
    io.stdout(result.token);
    io.stderr(`Next: export PULUMI_ACCESS_TOKEN=<token> && pulumi login <LoginUrl output>`);
    return result;
  } finally {
    await storage.close();
  }
}
