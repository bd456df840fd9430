import { formatStackRef } from '../../shared/core/names.js';
import { UserError } from '../output/errors.js';
import { requireExisting } from './stack.js';
import type { CommandHandler } from './types.js';

function versionArgument(text: string | undefined, which: string): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[0-9]{1,9}$/.test(text)) {
    throw new UserError(`invalid ${which} version '${text}': versions are whole numbers (0 is the stack before its first update)`, 'List the versions with `stackyard stack history`.');
  }
  return Number(text);
}

/**
 * `stack diff [<from> [<to>]]`: what changed between two versions (default: the last two; `<from>` alone compares
 * it with the latest), computed by the core on the service or in process; `--json` prints the core's shape.
 */
export const stackDiff: CommandHandler = async (ctx, args, opts) => {
  const from = versionArgument(args[0], 'from');
  const to = versionArgument(args[1], 'to');
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  await requireExisting(ctx, backend, ref);
  const showSecrets = opts.showSecrets === true;
  const diff = await backend.stateDiff().diffVersions(ref, { from, to }, showSecrets);
  if (opts.json === true) return ctx.json(diff);
  const { versionDiffText } = await import('../engine/display/diff/version-diff-text.js');
  const color = opts.color === 'always' || opts.color === 'raw' ? opts.color : 'never';
  ctx.out(versionDiffText(diff, formatStackRef(ref), { color, showSecrets }));
};
