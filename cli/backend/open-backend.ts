/** Picks the backend a command works on: `STACKYARD_BACKEND_URL`, else the one `stackyard login` chose. */
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readCredentials } from '../credentials.js';
import { UserError } from '../output/errors.js';
import type { Backend } from './backend.js';

/** `file://…` backends are local storage; `http(s)://…` a service. Anything else is refused with the accepted forms. */
export function backendKind(url: string): 'local' | 'service' {
  if (url.startsWith('file://')) return 'local';
  if (/^https?:\/\/[^/]/.test(url)) return 'service';
  throw new UserError(
    `'${url}' is not a backend URL stackyard understands`,
    'Use `stackyard login --local`, `stackyard login file://<folder>` or `stackyard login https://<your stackyard API>`.',
  );
}

/** `file://~/x`, `file://./x` and `file:///abs` all become one absolute `file:` URL. */
export function normalizeLocalUrl(url: string, cwd: string): string {
  const rest = url.slice('file://'.length);
  if (rest.startsWith('/')) return pathToFileURL(fileURLToPath(url)).href;
  const path = rest === '~' || rest.startsWith('~/') ? resolve(homedir(), rest.slice(2)) : resolve(cwd, rest);
  return pathToFileURL(path).href;
}

/** The access token for a service URL: STACKYARD_ACCESS_TOKEN, PULUMI_ACCESS_TOKEN, then the stored one. */
export function accessTokenFor(url: string, stored: Record<string, string>, env: NodeJS.ProcessEnv): string | undefined {
  return env.STACKYARD_ACCESS_TOKEN || env.PULUMI_ACCESS_TOKEN || stored[url] || undefined;
}

/** Opens a backend by URL. The local adapter and the HTTP client are each loaded only when used. */
export async function openBackend(url: string, token: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<Backend> {
  if (backendKind(url) === 'local') {
    const { LocalBackend } = await import('./local-backend.js');
    return LocalBackend.open(url, fileURLToPath(url));
  }
  const [{ ApiClient, normalizeServiceUrl }, { HttpBackend }, { configuredDefaultOrg }] = await Promise.all([
    import('../api-client/api-client.js'),
    import('./http-backend.js'),
    import('../backend-config.js'),
  ]);
  const base = normalizeServiceUrl(url);
  return new HttpBackend(new ApiClient(base, token), configuredDefaultOrg(base, env));
}

/** The backend commands use now; a clear next step when there is none. */
export async function currentBackend(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Promise<Backend> {
  const credentials = await readCredentials(env);
  let url = env.STACKYARD_BACKEND_URL || credentials.current;
  if (!url) {
    throw new UserError(
      'you are not logged in to a backend',
      'Run `stackyard login --local` to keep stacks on this machine, or `stackyard login <url>` for a stackyard service.',
    );
  }
  if (backendKind(url) === 'local') return openBackend(normalizeLocalUrl(url, cwd), undefined);
  url = url.replace(/\/+$/, '');
  const token = accessTokenFor(url, credentials.accessTokens, env);
  if (!token) {
    throw new UserError(`no access token for ${url}`, `Run \`stackyard login ${url}\`, or set STACKYARD_ACCESS_TOKEN.`);
  }
  return openBackend(url, token, env);
}
