/** `login`, `logout` and `whoami`. */
import { ApiError } from '../api-client/api-error.js';
import { forgetBackendConfig, setConfiguredDefaultOrg } from '../backend-config.js';
import { accessTokenFor, backendKind, normalizeLocalUrl, openBackend } from '../backend/open-backend.js';
import { localBackendUrl, readCredentials, writeCredentials, type Credentials } from '../credentials.js';
import { UserError } from '../output/errors.js';
import type { CommandContext } from './context.js';
import type { CommandHandler } from './types.js';

/** The URL a login or logout is about: argument, `--cloud-url`, `--local`, then (login only) STACKYARD_BACKEND_URL. */
function targetUrl(args: (string | undefined)[], opts: Record<string, unknown>, env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  const given = args[0] ?? (opts.cloudUrl as string | undefined);
  if (opts.local === true) {
    if (given) throw new UserError('--local cannot be combined with a backend URL', 'Pass either --local or a URL.');
    return localBackendUrl(env);
  }
  if (!given) return undefined;
  return backendKind(given) === 'local' ? normalizeLocalUrl(given, cwd) : given.replace(/\/+$/, '');
}

export const login: CommandHandler = async (ctx, args, opts) => {
  const fromEnv = ctx.env.STACKYARD_BACKEND_URL;
  const url = targetUrl(args, opts, ctx.env, ctx.cwd) ?? (fromEnv ? targetUrl([fromEnv], {}, ctx.env, ctx.cwd) : undefined);
  if (!url) {
    throw new UserError(
      'no backend URL given',
      'Run `stackyard login <url>` with your stackyard API URL (or set STACKYARD_BACKEND_URL), or `stackyard login --local`.',
    );
  }
  const defaultOrg = opts.defaultOrg as string | undefined;
  if (defaultOrg !== undefined && backendKind(url) === 'local') {
    throw new UserError('unable to set default org for this type of backend', 'The local backend has the one organization `organization`.');
  }
  const credentials = await readCredentials(ctx.env);
  const oidcFlags = OIDC_FLAG_NAMES.filter(([key]) => opts[key] !== undefined).map(([, flag]) => flag);
  if (oidcFlags.length > 0) {
    await loginWithOidc(ctx, url, opts, oidcFlags, credentials);
    if (defaultOrg !== undefined) await setConfiguredDefaultOrg(url, defaultOrg, ctx.env);
    return;
  }
  if (backendKind(url) === 'local') {
    const backend = await openBackend(url, undefined);
    const { user } = await backend.whoami().finally(() => backend.close());
    credentials.current = url;
    await writeCredentials(credentials, ctx.env);
    ctx.out(`Logged in to ${url} as ${user}`);
    return;
  }

  let token = accessTokenFor(url, credentials.accessTokens, ctx.env);
  if (ctx.env.STACKYARD_ACCESS_TOKEN) ctx.note('Logging in using access token from STACKYARD_ACCESS_TOKEN');
  else if (ctx.env.PULUMI_ACCESS_TOKEN) ctx.note('Logging in using access token from PULUMI_ACCESS_TOKEN');
  if (!token) {
    if (!ctx.interactive) {
      throw new UserError(`no access token for ${url}`, 'Set STACKYARD_ACCESS_TOKEN (or PULUMI_ACCESS_TOKEN) and run `stackyard login` again.');
    }
    token = (await ctx.promptValue('Enter your access token', true)).trim();
    if (!token) throw new UserError('no access token entered', `Run \`stackyard login ${url}\` again and paste a token.`);
  }
  const backend = await openBackend(url, token);
  let identity;
  try {
    identity = await backend.whoami();
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      throw new UserError(`${url} did not accept the access token: ${error.message}`, 'Ask your administrator for a valid token (`stackyard token create`).');
    }
    throw error;
  } finally {
    await backend.close();
  }
  credentials.current = url;
  credentials.accessTokens[url] = token;
  credentials.accounts[url] = { username: identity.user, organizations: identity.organizations, lastValidatedAt: new Date().toISOString() };
  await writeCredentials(credentials, ctx.env);
  if (defaultOrg !== undefined) await setConfiguredDefaultOrg(url, defaultOrg, ctx.env);
  ctx.out(`Logged in to ${url} as ${identity.user}`);
};

const OIDC_FLAG_NAMES = [
  ['oidcToken', '--oidc-token'],
  ['oidcOrg', '--oidc-org'],
  ['oidcTeam', '--oidc-team'],
  ['oidcUser', '--oidc-user'],
  ['oidcExpiration', '--oidc-expiration'],
] as const;

/** `login --oidc-token …`: exchange a CI provider's ID token for a Stackyard token, then log in with it. */
async function loginWithOidc(ctx: CommandContext, url: string, opts: Record<string, unknown>, given: string[], credentials: Credentials): Promise<void> {
  if (backendKind(url) === 'local') {
    throw new UserError(
      'oidc-token, oidc-org, oidc-team, oidc-user, and oidc-expiration flags are not supported for this type of backend',
      'OIDC logins exchange a token with a Stackyard service: `stackyard login https://<your stackyard API> --oidc-token …`.',
    );
  }
  if (opts.oidcToken === undefined) {
    throw new UserError(`${given.join(', ')} ${given.length === 1 ? 'needs' : 'need'} --oidc-token`, 'Pass the ID token to exchange with --oidc-token <jwt|file://path>.');
  }
  if (ctx.env.STACKYARD_ACCESS_TOKEN || ctx.env.PULUMI_ACCESS_TOKEN) {
    throw new UserError('cannot perform token exchange when an access token is set as environment variable', 'Unset STACKYARD_ACCESS_TOKEN and PULUMI_ACCESS_TOKEN.');
  }
  const { exchangeOidcToken } = await import('./oidc-login.js');
  const exchanged = await exchangeOidcToken(url, opts as Record<string, string | undefined>);
  const backend = await openBackend(url, exchanged.accessToken);
  const identity = await backend.whoami().finally(() => backend.close());
  credentials.current = url;
  credentials.accessTokens[url] = exchanged.accessToken;
  credentials.accounts[url] = {
    username: identity.user,
    organizations: identity.organizations,
    lastValidatedAt: new Date().toISOString(),
    tokenExpiresAt: new Date(exchanged.expiresAt).toISOString(),
  };
  await writeCredentials(credentials, ctx.env);
  ctx.out(`Logged in to ${url} as ${identity.user} (token expires ${new Date(exchanged.expiresAt).toISOString()})`);
}

export const logout: CommandHandler = async (ctx, args, opts) => {
  const credentials = await readCredentials(ctx.env);
  if (opts.all === true) {
    await writeCredentials({ accessTokens: {}, accounts: {} }, ctx.env);
    await forgetBackendConfig(undefined, ctx.env);
    ctx.out('Logged out of all backends');
    return;
  }
  const url = targetUrl(args, opts, ctx.env, ctx.cwd) ?? credentials.current;
  if (!url) throw new UserError('you are not logged in', 'There is nothing to log out of.');
  delete credentials.accessTokens[url];
  delete credentials.accounts[url];
  if (credentials.current === url) delete credentials.current;
  await writeCredentials(credentials, ctx.env);
  await forgetBackendConfig(url, ctx.env);
  ctx.out(`Logged out of ${url}`);
};

export const whoami: CommandHandler = async (ctx, _args, opts) => {
  const backend = await ctx.backend();
  const { user, organizations } = await backend.whoami();
  if (opts.json === true) {
    ctx.json({ user, ...(organizations.length > 0 ? { organizations } : {}), url: backend.url });
  } else if (opts.verbose === true) {
    ctx.out(`User: ${user}\nOrganizations: ${organizations.join(', ')}\nBackend URL: ${backend.url}`);
  } else {
    ctx.out(user);
  }
};
