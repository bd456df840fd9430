/**
 * `deployment settings webhook show|set|remove` (stackyard's own; Pulumi Cloud's push webhooks belong to its GitHub
 * app): the stack's push webhook secret and URL (docs/deployments.md, "Push to deploy"). The secret goes to the service
 * only inside the settings patch, which seals it under the stack's key; it is never an argument (argv shows in `ps`),
 * is printed once when the CLI made it, and no read returns it.
 */
import { randomBytes } from 'node:crypto';
import type { StackRef } from '../../shared/core/names.js';
import { DEFAULT_API_URLS, type ResultProvider } from '../../shared/core/push-webhooks/result-settings.js';
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

/** A value piped to standard input (one trailing newline dropped), refused when a terminal would echo it. */
async function readStdin(flag: string, usage: string, minLength: number): Promise<string> {
  if (process.stdin.isTTY) throw new UserError(`${flag} reads the value from standard input`, `Pipe it in: \`${usage}\`.`);
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const value = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
  if (value.length < minLength) throw new UserError(`the value given on standard input must be at least ${minLength} characters (got ${value.length})`, `Pipe in the whole value: \`${usage}\`.`);
  return value;
}

/** `webhook show`: whether a secret is set, the URL, and whether results are posted back. */
export const deploymentWebhookShow: CommandHandler = async (ctx, _args, opts) => {
  const { deployments, ref, url, name } = await target(ctx, opts);
  const settings = await deployments.getSettings(ref);
  const hook = settings.pushWebhook as { hasSecret?: boolean; postResults?: unknown } | undefined;
  const hasSecret = hook?.hasSecret === true;
  const post = typeof hook?.postResults === 'object' && hook.postResults !== null ? (hook.postResults as Record<string, unknown>) : undefined;
  const postResults = post && {
    provider: String(post.provider),
    repository: String(post.repository ?? (settings.gitHub as { repository?: string } | undefined)?.repository),
    apiUrl: String(post.apiUrl ?? DEFAULT_API_URLS[post.provider as ResultProvider]),
  };
  if (opts.output === 'json') return ctx.json({ url, hasSecret, ...(postResults ? { postResults } : {}) });
  ctx.out(`Push webhook of '${name}': ${hasSecret ? 'a secret is set' : 'no secret is set (set one with `stackyard deployment settings webhook set`)'}`);
  ctx.out(`URL: ${url}`);
  ctx.out(
    postResults
      ? `Pull request previews' results are posted to ${postResults.provider === 'gitlab' ? 'GitLab' : 'GitHub'}: ${postResults.repository} through ${postResults.apiUrl}`
      : 'Pull request previews\' results are not posted back (configure it with `stackyard deployment settings webhook post-results`)',
  );
};

/** `webhook set`: a new secret (made here, or read from stdin), replacing any; also how a secret is rotated. */
export const deploymentWebhookSet: CommandHandler = async (ctx, _args, opts) => {
  const given = opts.secretStdin === true ? await readStdin('--secret-stdin', 'printf %s "$SECRET" | stackyard deployment settings webhook set --secret-stdin', MIN_SECRET_LENGTH) : undefined;
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

/**
 * `webhook post-results`: where the results of pull request previews are posted (`pushWebhook.postResults`), with the
 * git host's token read from stdin and sealed by the service; `--off` stops posting.
 */
export const deploymentWebhookPostResults: CommandHandler = async (ctx, _args, opts) => {
  const usage = 'printf %s "$TOKEN" | stackyard deployment settings webhook post-results --provider github --token-stdin';
  if (opts.off === true) {
    if (opts.provider !== undefined || opts.repository !== undefined || opts.apiUrl !== undefined || opts.tokenStdin === true) throw new UserError('--off takes no other flag');
    const { deployments, ref, name } = await target(ctx, opts);
    await deployments.patchSettings(ref, { pushWebhook: { postResults: null } });
    return ctx.out(`Results of pull request previews of '${name}' are no longer posted back.`);
  }
  if (opts.provider !== 'github' && opts.provider !== 'gitlab') throw new UserError('--provider must be github or gitlab', 'Or pass --off to stop posting results.');
  const token = opts.tokenStdin === true ? await readStdin('--token-stdin', usage, 1) : undefined;
  const { deployments, ref, name } = await target(ctx, opts);
  const postResults: Record<string, unknown> = { provider: opts.provider };
  if (opts.repository !== undefined) postResults.repository = String(opts.repository);
  if (opts.apiUrl !== undefined) postResults.apiUrl = String(opts.apiUrl);
  if (token !== undefined) postResults.token = { secret: token };
  await deployments.patchSettings(ref, { pushWebhook: { postResults } });
  ctx.out(`Results of pull request previews of '${name}' are posted to ${opts.provider === 'gitlab' ? 'GitLab' : 'GitHub'}.`);
};
