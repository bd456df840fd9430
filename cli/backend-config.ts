/**
 * Per-backend settings, `$STACKYARD_HOME/config.json`, in the shape of Pulumi's `~/.pulumi/config.json`:
 * `{"backends": {"<backend URL>": {"defaultOrg": "acme"}}}`. Written by `org set-default` and `login --default-org`,
 * dropped by `logout`, read when a service backend needs the organization of a short stack name.
 */
import { promises as fs, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stackyardHome, writePrivateJson } from './credentials.js';

interface BackendConfigFile {
  backends?: Record<string, { defaultOrg?: string }>;
}

function configPath(env: NodeJS.ProcessEnv): string {
  return join(stackyardHome(env), 'config.json');
}

/** Synchronously, as readCredentials (credentials.ts) explains; a missing file is no settings. */
function readConfig(env: NodeJS.ProcessEnv): BackendConfigFile {
  try {
    return JSON.parse(readFileSync(configPath(env), 'utf8')) as BackendConfigFile;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
}

/** The default organization set for a backend URL, if one was. */
export function configuredDefaultOrg(url: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return readConfig(env).backends?.[url]?.defaultOrg || undefined;
}

/** Sets a backend's default organization (the backend's other settings are replaced, as Pulumi replaces them). */
export async function setConfiguredDefaultOrg(url: string, org: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const config = readConfig(env);
  config.backends = { ...config.backends, [url]: { defaultOrg: org } };
  await writePrivateJson(configPath(env), config);
}

/** Drops one backend's settings (`logout`), or every backend's (`logout --all`); no backend left removes the file. */
export async function forgetBackendConfig(url: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const config = readConfig(env);
  if (!config.backends) return;
  if (url === undefined) delete config.backends;
  else delete config.backends[url];
  if (Object.keys(config.backends ?? {}).length > 0) await writePrivateJson(configPath(env), config);
  else await fs.rm(configPath(env), { force: true });
}
