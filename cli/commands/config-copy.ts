/**
 * `config cp [key]` (Pulumi's `config copy`): the current stack's configuration, or one key of it, into another stack
 * of the project (`--dest`), secrets encrypted again with the destination stack's key.
 */
import { formatStackRef } from '../../shared/core/names.js';
import { UserError } from '../output/errors.js';
import { copyStackConfig, reencryptEntries } from '../project/config-copy.js';
import { parseConfigKey } from '../project/stack-config.js';
import { configTarget, prettyKey, stackConfigTarget } from './config.js';
import type { CommandHandler } from './types.js';

export const configCopy: CommandHandler = async (ctx, args, opts) => {
  const source = await configTarget(ctx, opts);
  // Without --dest Pulumi copies into the selected stack: useful with -s naming another source.
  const destination = typeof opts.dest === 'string' ? { backend: source.backend, project: source.project, ref: await ctx.parseStack(opts.dest) } : await ctx.resolveStack(undefined);
  if (formatStackRef(destination.ref) === formatStackRef(source.ref)) {
    throw new UserError('current stack and destination stack are the same', 'Name another stack of the project with --dest <stack>.');
  }
  const target = await stackConfigTarget(ctx, source.project, destination);
  if (target.file.remoteEnvironment !== undefined) {
    throw new UserError(`config copy destination not supported for remote stack config: use \`stackyard env set ${target.file.remoteEnvironment} pulumiConfig.<key>\``);
  }
  if (args[0] === undefined) {
    await copyStackConfig(source.backend, source.project, source.ref, target.ref);
    return;
  }
  const key = parseConfigKey(args[0], source.project.name, opts.path === true);
  const value = source.file.get(key);
  if (value === undefined) {
    throw new UserError(
      `configuration key '${key.path.length > 0 ? args[0] : prettyKey(key.key, source.project)}' not found for stack '${await ctx.displayName(source.ref)}'`,
      'List the keys with `stackyard config`.',
    );
  }
  const [[, copied]] = await reencryptEntries(source.backend, source.ref, target.ref, [[key.key, value]], source.fileName);
  target.file.set(key, copied);
  await target.file.save();
};
