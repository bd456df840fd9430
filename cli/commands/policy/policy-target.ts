/** What the `policy` commands share: the pack named on the command line, and the organization a command works on. */
import type { Backend } from '../../backend/backend.js';
import type { PolicyBackend } from '../../backend/policy-backend.js';
import { UserError } from '../../output/errors.js';
import type { CommandContext } from '../context.js';

/** A pack on the service: `<org-name>/<policy-pack-name>`. */
export interface PackTarget {
  org: string;
  name: string;
  policies: PolicyBackend;
}

/** Pulumi's `parsePolicyPackReference`: exactly one `/`; an empty organization is the current user's. */
export async function packTarget(ctx: CommandContext, text: string): Promise<PackTarget> {
  const parts = text.split('/');
  if (parts.length !== 2) throw new UserError(`could not parse policy pack name '${text}'; must be of the form <org-name>/<policy-pack-name>`);
  const backend = await ctx.backend();
  const policies = backend.policies();
  const org = parts[0] || (await backend.whoami()).user;
  return { org, name: parts[1]!, policies };
}

/** The organization given as the optional `[org-name]` argument, else the backend's default one. */
export async function orgArgument(backend: Backend, given: string | undefined): Promise<string> {
  if (given !== undefined && given !== '') return given;
  return backend.defaultOrg();
}
