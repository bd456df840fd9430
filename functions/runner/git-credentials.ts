/**
 * The clone's credential (`gitAuth`, shared/core/deployments/git-auth.ts) handed to git without it ever being in
 * the URL, git's argv, the run's log or an environment variable: it sits in files readable only by the runner (0600,
 * in a 0700 folder) that an askpass script prints when git (HTTPS) or ssh (the key's passphrase) asks, and the
 * folder is removed as soon as the clone ends. The steps after the clone (npm, pre-run commands, the program) never
 * see any of it.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GitAuth } from '../../shared/core/deployments/git-auth.js';

/** What the clone step adds to its environment and argv; `dispose` removes the files. */
export interface GitCredentials {
  env: NodeJS.ProcessEnv;
  /** git's `-c` options (no secret in them): no credential helper of the machine is asked or told anything. */
  configArgs: string[];
  dispose(): void;
}

/** The protocols a clone may use: HTTP(S) always, SSH only with the settings' own key (never the machine's). */
const HTTP_ONLY = 'http:https';

/** POSIX shell single quoting, for the paths put in the askpass script and GIT_SSH_COMMAND. */
function quoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function secretFile(dir: string, name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content, { mode: 0o600 });
  return path;
}

/**
 * Writes `auth` into a fresh folder under `parent` and returns how the clone uses it. Without `auth`, the clone
 * still gets the environment that keeps the machine's own credentials (helpers, ssh agent) out of it.
 */
export function gitCredentials(parent: string, auth: GitAuth | undefined): GitCredentials {
  const closed: NodeJS.ProcessEnv = { GIT_ALLOW_PROTOCOL: HTTP_ONLY, SSH_AUTH_SOCK: undefined, GIT_ASKPASS: undefined, SSH_ASKPASS: undefined };
  const configArgs = ['-c', 'credential.helper='];
  if (!auth) return { env: closed, configArgs, dispose() {} };
  const dir = mkdtempSync(join(parent, 'git-auth-'));
  chmodSync(dir, 0o700);
  const dispose = () => rmSync(dir, { recursive: true, force: true });
  try {
    const askpass = join(dir, 'askpass.sh');
    if (auth.kind === 'basic') {
      const user = secretFile(dir, 'user', auth.userName);
      const password = secretFile(dir, 'password', auth.password);
      // git asks "Username for '…': " first, then "Password for '…': ".
      const script = `#!/bin/sh\ncase "$1" in\n  Username*) cat ${quoted(user)} ;;\n  *) cat ${quoted(password)} ;;\nesac\n`;
      writeFileSync(askpass, script, { mode: 0o700 });
      return { env: { ...closed, GIT_ASKPASS: askpass }, configArgs, dispose };
    }
    const key = secretFile(dir, 'key', auth.privateKey.endsWith('\n') ? auth.privateKey : `${auth.privateKey}\n`);
    const passphrase = secretFile(dir, 'passphrase', auth.passphrase ?? '');
    writeFileSync(askpass, `#!/bin/sh\ncat ${quoted(passphrase)}\n`, { mode: 0o700 });
    // No ssh config or agent of the machine; the host's key is taken on first sight, as each run starts afresh.
    const ssh = [
      'ssh -F /dev/null -o IdentitiesOnly=yes -o IdentityAgent=none -o PasswordAuthentication=no',
      `-o StrictHostKeyChecking=accept-new -o UserKnownHostsFile=${quoted(join(dir, 'known_hosts'))} -i ${quoted(key)}`,
    ].join(' ');
    return {
      env: { ...closed, GIT_ALLOW_PROTOCOL: `${HTTP_ONLY}:ssh`, GIT_SSH_COMMAND: ssh, SSH_ASKPASS: askpass, SSH_ASKPASS_REQUIRE: 'force', DISPLAY: ':0' },
      configArgs,
      dispose,
    };
  } catch (error) {
    dispose();
    throw error;
  }
}
