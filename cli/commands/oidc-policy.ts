/** `org oidc-policy add|ls|rm`: which CI identities may exchange OIDC ID tokens for this organization's tokens. */
import type { OidcPolicyRequest } from '../backend/access-backend.js';
import { parseDurationSeconds } from '../engine/go-formats/durations.js';
import { UserError } from '../output/errors.js';
import { table } from './format.js';
import type { CommandHandler } from './types.js';

function claims(values: unknown): Record<string, string> {
  const result: Record<string, string> = {};
  for (const value of (values as string[] | undefined) ?? []) {
    const at = value.indexOf('=');
    if (at <= 0) throw new UserError(`invalid --claim '${value}'`, 'Write it as <claim>=<pattern>, e.g. --claim sub=repo:acme/infra:ref:refs/heads/*.');
    result[value.slice(0, at)] = value.slice(at + 1);
  }
  if (Object.keys(result).length === 0) {
    throw new UserError('give at least one --claim', 'For example --claim sub=repo:acme/infra:ref:refs/heads/main: without one, every token of the issuer would be trusted.');
  }
  return result;
}

function lifetime(text: unknown): number | undefined {
  if (text === undefined) return undefined;
  const seconds = parseDurationSeconds(text as string);
  if (seconds === undefined) throw new UserError(`invalid --max-lifetime '${String(text)}'`, 'Give a duration such as 15m, 2h or 24h.');
  return Math.trunc(seconds);
}

const kindOf = (p: { tokenKind: string; team?: string; user?: string }) => (p.tokenKind === 'team' ? `team ${p.team}` : p.tokenKind === 'personal' ? `personal ${p.user}` : 'organization');

export const oidcPolicyAdd: CommandHandler = async (ctx, args, opts) => {
  if (typeof opts.issuer !== 'string') throw new UserError('give the issuer with --issuer <url>', 'For GitHub Actions: --issuer https://token.actions.githubusercontent.com.');
  const team = opts.team as string | undefined;
  const user = opts.user as string | undefined;
  if (team !== undefined && user !== undefined) throw new UserError('give at most one of --team or --user', 'A policy issues organization, team or personal tokens.');
  const request: OidcPolicyRequest = {
    issuer: opts.issuer as string,
    claims: claims(opts.claim),
    tokenKind: team !== undefined ? 'team' : user !== undefined ? 'personal' : 'organization',
    ...(team !== undefined ? { team } : {}),
    ...(user !== undefined ? { user } : {}),
    ...(opts.audience !== undefined ? { audiences: opts.audience as string[] } : {}),
    ...(opts.maxLifetime !== undefined ? { maxLifetimeSeconds: lifetime(opts.maxLifetime) } : {}),
    ...(opts.description !== undefined ? { description: opts.description as string } : {}),
  };
  const policy = await (await ctx.backend()).access().addOidcPolicy(args[0]!, request);
  if (opts.json === true) return ctx.json(policy);
  ctx.out(`Added OIDC trust policy ${policy.id} to '${args[0]}': ${policy.issuer} → ${kindOf(policy)} tokens (at most ${policy.maxLifetimeSeconds} s)`);
};

export const oidcPolicyLs: CommandHandler = async (ctx, args, opts) => {
  const policies = await (await ctx.backend()).access().listOidcPolicies(args[0]!);
  if (opts.json === true) return ctx.json(policies);
  ctx.out(
    table(
      ['ID', 'ISSUER', 'AUDIENCES', 'CLAIMS', 'TOKEN', 'MAX LIFETIME'],
      policies.map((p) => [
        p.id,
        p.issuer,
        p.audiences.join(', '),
        Object.entries(p.claims).map(([k, v]) => `${k}=${v}`).join(' '),
        kindOf(p),
        `${p.maxLifetimeSeconds}s`,
      ]),
    ),
  );
};

export const oidcPolicyRm: CommandHandler = async (ctx, args) => {
  await (await ctx.backend()).access().removeOidcPolicy(args[0]!, args[1]!);
  ctx.out(`Removed OIDC trust policy ${args[1]} from '${args[0]}'`);
};
