/** `org`, `user` and `token`: organizations, users and API tokens on the current backend. */
import { UsageError, UserError } from '../output/errors.js';
import { formatTime, table } from './format.js';
import type { CommandContext } from './context.js';
import type { CommandHandler } from './types.js';

export const orgCreate: CommandHandler = async (ctx, args) => {
  await (await ctx.backend()).identity().createOrg(args[0]!);
  ctx.out(`Created organization '${args[0]}'`);
};

export const orgLs: CommandHandler = async (ctx, _args, opts) => {
  const orgs = await (await ctx.backend()).identity().listOrgs();
  if (opts.json === true) return ctx.json(orgs);
  ctx.out(table(['NAME', 'ROLE'], orgs.map((o) => [o.name, o.role])));
};

export const orgAddMember: CommandHandler = async (ctx, args, opts) => {
  const role = (opts.role as string | undefined) ?? 'member';
  if (role !== 'member' && role !== 'admin' && role !== 'viewer') {
    throw new UserError(`invalid role '${role}'`, 'Use --role admin, --role member or --role viewer.');
  }
  await (await ctx.backend()).identity().addMember(args[0]!, args[1]!, role);
  ctx.out(`Added '${args[1]}' to organization '${args[0]}' as ${role}`);
};

export const userCreate: CommandHandler = async (ctx, args, opts) => {
  await (await ctx.backend()).identity().createUser({
    login: args[0]!,
    name: opts.name as string | undefined,
    email: opts.email as string | undefined,
    admin: opts.admin === true ? true : undefined,
  });
  ctx.out(`Created user '${args[0]}'${opts.admin === true ? ' (administrator)' : ''}`);
};

/** The token alone goes to stdout, so `TOKEN=$(stackyard token create)` captures exactly it; the rest to stderr. */
export const tokenCreate: CommandHandler = async (ctx, _args, opts) => {
  if (opts.expiresIn !== undefined && opts.expiresInDays !== undefined) {
    throw new UsageError('--expires-in and --expires-in-days both set the lifetime: pass one of them.');
  }
  const expiresInDays = (opts.expiresIn ?? opts.expiresInDays) as number | undefined;
  const backend = await ctx.backend();
  const org = orgTokenOwner(opts);
  const created = org
    ? await backend.access().createOrgToken(org.org, {
        description: (opts.description as string | undefined) ?? 'created with stackyard token create',
        ...(org.team !== undefined ? { team: org.team } : {}),
        expiresInDays,
      })
    : await backend.identity().createToken({
    description: (opts.description as string | undefined) ?? 'created with stackyard token create',
    login: opts.login as string | undefined,
    expiresInDays,
  });
  ctx.note(`Created token ${created.id}. It is shown once and stored nowhere: keep it in your password manager.`);
  ctx.out(created.token);
};

export const tokenLs: CommandHandler = async (ctx, _args, opts) => {
  const org = orgTokenOwner(opts);
  if (org) return orgTokenLs(ctx, org, opts.json === true);
  const tokens = await (await ctx.backend()).identity().listTokens(opts.login as string | undefined);
  if (opts.json === true) {
    return ctx.json(
      tokens.map((t) => ({
        id: t.id,
        description: t.description,
        ...(t.login !== undefined ? { login: t.login } : {}),
        ...(t.createdAt !== undefined ? { createdAt: formatTime(t.createdAt) } : {}),
        ...(t.expiresAt !== undefined ? { expiresAt: formatTime(t.expiresAt) } : {}),
        ...(t.lastUsed !== undefined ? { lastUsed: formatTime(t.lastUsed) } : {}),
      })),
    );
  }
  ctx.out(
    table(
      ['ID', 'DESCRIPTION', 'CREATED', 'EXPIRES', 'LAST USED'],
      tokens.map((t) => [
        t.id,
        t.description,
        t.createdAt ? formatTime(t.createdAt) : '',
        t.expiresAt ? formatTime(t.expiresAt) : 'never',
        t.lastUsed ? formatTime(t.lastUsed) : 'never',
      ]),
    ),
  );
};

export const tokenRevoke: CommandHandler = async (ctx, args, opts) => {
  const org = orgTokenOwner(opts);
  if (org) await (await ctx.backend()).access().revokeOrgToken(org.org, args[0]!, org.team);
  else await (await ctx.backend()).identity().revokeToken(args[0]!, opts.login as string | undefined);
  ctx.out(`Revoked token ${args[0]}`);
};

/** `--org [--team]`: the token commands act on an organization's or team's tokens instead of a user's. */
function orgTokenOwner(opts: Record<string, unknown>): { org: string; team?: string } | undefined {
  const org = opts.org as string | undefined;
  const team = opts.team as string | undefined;
  if (team !== undefined && org === undefined) throw new UserError('--team needs --org', 'For example: `stackyard token create --org acme --team ci`.');
  if (org !== undefined && opts.login !== undefined) throw new UserError('--login and --org cannot be combined', 'Use --login for a user\'s tokens, --org [--team] for an organization\'s or team\'s.');
  return org === undefined ? undefined : { org, ...(team !== undefined ? { team } : {}) };
}

async function orgTokenLs(ctx: CommandContext, owner: { org: string; team?: string }, json: boolean): Promise<void> {
  const tokens = await (await ctx.backend()).access().listOrgTokens(owner.org, owner.team);
  const time = (ms: number | undefined) => (ms === undefined ? undefined : formatTime(ms));
  if (json) {
    return ctx.json(tokens.map((t) => ({ ...t, createdAt: time(t.createdAt), expiresAt: time(t.expiresAt), lastUsed: time(t.lastUsed) })));
  }
  ctx.out(
    table(
      ['ID', 'KIND', 'DESCRIPTION', 'CREATED BY', 'CREATED', 'EXPIRES', 'LAST USED'],
      tokens.map((t) => [t.id, t.team ? `team ${t.team}` : t.kind, t.description, t.createdBy ?? '', time(t.createdAt) ?? '', time(t.expiresAt) ?? 'never', time(t.lastUsed) ?? 'never']),
    ),
  );
}
