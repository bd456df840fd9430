/**
 * `deployment settings webhook show|set|remove` (stackyard's own; Pulumi Cloud's push webhooks belong to its GitHub
 * app): the stack's push webhook secret and URL (docs/deployments.md, "Push to deploy"). The secret goes to the service
 * only inside the settings patch, which seals it under the stack's key; it is never an argument (argv shows in `ps`),
 * is printed once when the CLI made it, and no read returns it.
 */
import { randomBytes } from 'node:crypto';
import type { StackRef } from '../../shared/core/names.js';
import { UserError } from '../output/errors.js';
import type { CommandContext } from './context.js';
import type { CommandHandler } from './types.js';

/** The shortest secret the service takes (settings.ts). */
const MIN_SECRET_LENGTH = 16;

/** The webhook route of a stack on the service the CLI is logged in to (functions/http/routes/push-webhooks.ts). */
export function webhookUrl(serviceUrl: string, ref: StackRef): string {
  const seg = encodeURIComponent;
  return `${serviceUrl.replace(/\/+$/, '')}/api/webhooks/git/${seg(ref.org)}/${seg(ref.project)}/${seg(ref.stack)}`;
}

async function target(ctx: CommandContext, opts: Record<string, unknown>) {
  // The local backend's deployments() refuses every call, saying where deployments run.
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  return { deployments: backend.deployments(), ref, url: webhookUrl(backend.url, ref), name: await ctx.displayName(ref) };
}

async function readSecret(): Promise<string> {
  if (process.stdin.isTTY) throw new UserError('--secret-stdin reads the secret from standard input', 'Pipe it in: `printf %s "$SECRET" | stackyard deployment settings webhook set --secret-stdin`.');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const secret = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
  if (secret.length < MIN_SECRET_LENGTH) throw new UserError(`the push webhook secret must be at least ${MIN_SECRET_LENGTH} characters (got ${secret.length})`, 'Give a longer one, or leave out --secret-stdin to have one made.');
  return secret;
}

/** `webhook show`: whether a secret is set, the URL, and whether results are posted back. */
export const deploymentWebhookShow: CommandHandler = async (ctx, _args, opts) => {
  const { deployments, ref, url, name } = await target(ctx, opts);
  const hook = (await deployments.getSettings(ref)).pushWebhook as { hasSecret?: boolean } | undefined;
  const hasSecret = hook?.hasSecret === true;
  if (opts.output === 'json') return ctx.json({ url, hasSecret });
  ctx.out(`Push webhook of '${name}': ${hasSecret ? 'a secret is set' : 'no secret is set (set one with `stackyard deployment settings webhook set`)'}`);
  ctx.out(`URL: ${url}`);
};

/** `webhook set`: a new secret (made here, or read from stdin), replacing any; also how a secret is rotated. */
export const deploymentWebhookSet: CommandHandler = async (ctx, _args, opts) => {
  const given = opts.secretStdin === true ? await readSecret() : undefined;
  const { deployments, ref, url, name } = await target(ctx, opts);
  const secret = given ?? randomBytes(32).toString('hex');
  await deployments.patchSettings(ref, { pushWebhook: { secret: { secret } } });
  if (opts.output === 'json') return ctx.json({ url, ...(given === undefined ? { secret } : {}) });
  ctx.out(`Push webhook secret of '${name}' set; a delivery signed with the previous one is refused from now on.`);
  if (given === undefined) ctx.out(`Secret: ${secret}\n(shown this once: copy it into the git host's webhook now)`);
  ctx.out(`URL: ${url}`);
  ctx.out('GitHub: content type application/json, events push and pull_request. GitLab: the secret token, push and merge request events.');
};

/** `webhook remove`: deletes the secret, so every delivery to the stack's URL is refused. */
export const deploymentWebhookRemove: CommandHandler = async (ctx, _args, opts) => {
  const { deployments, ref, name } = await target(ctx, opts);
  await ctx.confirm(opts.yes, `remove the push webhook secret of ${name}`, `Every push webhook delivery to '${name}' will be refused.`);
  await deployments.patchSettings(ref, { pushWebhook: { secret: null } });
  ctx.out(`Push webhook secret of '${name}' removed; deliveries to its URL are refused.`);
};
