/**
 * `admin oidc-key ls|rotate`: the environments' OIDC issuer signing keys (docs/environments.md, "Rotating the issuer's
 * signing key"). Site administrators only; against the service the deployment's keys, under `login --local` the data
 * folder's.
 */
import type { IssuerKeyView } from '../../shared/core/environments/issuer/key-view.js';
import { table } from './format.js';
import type { CommandHandler } from './types.js';

const rows = (keys: IssuerKeyView[]) =>
  table(
    ['GENERATION', 'KID', 'STATE', 'SIGNS FROM', 'RETIRES AT'],
    keys.map((key) => [String(key.generation), key.kid, key.state, key.signsFrom, key.retiresAt ?? '-']),
  );

export const adminOidcKeyLs: CommandHandler = async (ctx, _args, opts) => {
  const keys = await (await ctx.backend()).issuer().keys();
  if (opts.json === true) return ctx.json(keys);
  ctx.out(rows(keys));
};

export const adminOidcKeyRotate: CommandHandler = async (ctx, _args, opts) => {
  const keys = await (await ctx.backend()).issuer().rotate();
  if (opts.json === true) return ctx.json(keys);
  const made = keys.find((key) => key.state === 'next');
  const current = keys.find((key) => key.state === 'signing');
  if (made) {
    ctx.out(`Made key ${made.kid} (generation ${made.generation}): published now, it signs from ${made.signsFrom}.`);
    if (current) ctx.out(`Key ${current.kid} signs until then and stays published until ${current.retiresAt ?? '-'}, when its last token has expired.`);
  }
  ctx.out(rows(keys));
};
