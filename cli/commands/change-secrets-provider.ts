/**
 * `stack change-secrets-provider <provider>`, Pulumi's command, for the one provider stackyard has: the stack's own
 * key (`default`). It moves a stack whose `Pulumi.<stack>.yaml` (or state) still holds another provider's secrets —
 * `passphrase`, `awskms://…`, another stack's service key — to this stack's key, with nothing re-entered.
 */
import { isNotFound, secretsProviderFor } from '../backend/backend.js';
import { openForeignSecrets, sealSecrets } from '../backend/deployment-secrets.js';
import { migrateStackFile } from '../migrate/stack-file.js';
import { UserError } from '../output/errors.js';
import { stackConfigPath } from '../project/project.js';
import { decrypterForStackFile } from '../secrets/source-secrets.js';
import { ServiceDecrypters } from '../secrets/service-decrypter.js';
import type { CommandHandler } from './types.js';

const OWN_KEY = ['default', 'service'];

export const changeSecretsProvider: CommandHandler = async (ctx, args, opts) => {
  const provider = args[0]!;
  if (!OWN_KEY.includes(provider)) {
    throw new UserError(
      `stackyard keeps every stack's secrets under that stack's own key; it cannot change to '${provider}'`,
      'Use `stackyard stack change-secrets-provider default` to move passphrase or awskms:// secrets to the stack key (docs/migration.md).',
    );
  }
  const project = await ctx.requireProject();
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  const name = await ctx.displayName(ref);
  await backend.getStack(ref).catch((error: unknown) => {
    if (isNotFound(error)) throw new UserError(`no stack named '${name}' found`, 'List stacks with `stackyard stack ls`.');
    throw error;
  });
  const path = stackConfigPath(project, ref.stack);
  const file = await migrateStackFile(path, backend, ref, async (settings) => {
    const named = await decrypterForStackFile(settings, ctx.env);
    if (!named) {
      throw new UserError(
        `${path} holds secrets that are not this stack's and names no secrets provider (encryptionsalt or secretsprovider)`,
        'Set those values again with `stackyard config set --secret`.',
      );
    }
    return named;
  });
  if (file.outcome === 'rewritten') ctx.note(`Re-encrypted ${file.secrets} configuration secret(s) in ${path}; the original is kept as ${file.backup}.`);

  const deployment = await backend.exportDeployment(ref);
  const services = new ServiceDecrypters(ctx.env, backend);
  let source: string | undefined;
  try {
    source = await openForeignSecrets(backend, ref, deployment, { env: ctx.env, serviceDecrypter: services.open });
  } finally {
    await services.close();
  }
  if (source) {
    await sealSecrets(backend, ref, deployment, secretsProviderFor(backend, ref));
    await backend.importDeployment(ref, deployment);
    ctx.note(`Re-encrypted the state's secrets from the ${source} secrets provider.`);
  }
  ctx.out(
    file.outcome === 'rewritten' || source
      ? `Stack '${name}' now uses its own key for all of its secrets.`
      : `Stack '${name}' already uses its own key for all of its secrets; nothing to change.`,
  );
};
