/** Logging in and out, and who you are: `login`, `logout`, `whoami`. */
import type { Command } from 'commander';
import { COMMAND_GLOBALS, JSON_FLAG, leaf } from './tree.js';

const auth = () => import('../auth.js');

export function registerAccountGrammar(program: Command): void {
  leaf(program, 'login [url]', 'Log in to a stackyard backend (a service URL, file://<folder>, or --local)', [
    { flags: '-l, --local', description: 'keep stacks in $STACKYARD_HOME/local on this machine' },
    { flags: '--cloud-url <url>', description: 'the backend URL (same as the argument)' },
    { flags: '--default-org <org>', description: 'the organization of stack names given without one (a service only; see `org set-default`)' },
    { flags: '--insecure', description: 'skip TLS verification', refused: 'TLS certificates are always verified' },
    { flags: '--oidc-token <token>', description: "an OIDC ID token to exchange for an access token: the token, or 'file://<path>' of a file holding it" },
    { flags: '--oidc-org <org>', description: 'the organization of the OIDC token exchange (default: from the token\'s aud claim)' },
    { flags: '--oidc-team <team>', description: 'exchange for a team token of this team' },
    { flags: '--oidc-user <user>', description: 'exchange for a personal token of this user' },
    { flags: '--oidc-expiration <duration>', description: "the exchanged token's lifetime, e.g. '15m', '24h' (default 2h; the trust policy's maximum caps it)" },
  ], async () => (await auth()).login);

  leaf(program, 'logout [url]', 'Log out of a backend (the current one by default)', [
    { flags: '-l, --local', description: 'log out of the local backend' },
    { flags: '--cloud-url <url>', description: 'the backend URL (same as the argument)' },
    { flags: '--all', description: 'log out of every backend' },
  ], async () => (await auth()).logout);

  leaf(program, 'whoami', 'Show the current user and backend', [
    JSON_FLAG,
    { flags: '-v, --verbose', description: 'also show organizations and the backend URL' },
  ], async () => (await auth()).whoami, COMMAND_GLOBALS.filter((f) => !f.flags.startsWith('-v,')));
}
