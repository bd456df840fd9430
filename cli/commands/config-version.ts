/** `config --version <n>` (pulumi/pulumi#9983): the config recorded with version n's update, shown as `config` shows it. */
import type { Backend, UpdateInfo } from '../backend/backend.js';
import type { StackRef } from '../../shared/core/names.js';
import { UserError } from '../output/errors.js';
import { table } from './format.js';
import { prettyKey, shownHistoryConfig } from './history-config.js';
import { requireExisting } from './stack.js';
import type { CommandHandler } from './types.js';

const PAGE_SIZE = 100;

/** The history entry of `version` (history is newest first), or the latest version when there is none. */
async function historyEntry(backend: Backend, ref: StackRef, version: number): Promise<{ entry?: UpdateInfo; latest: number }> {
  let latest = 0;
  for (let page = 1; ; page += 1) {
    const updates = await backend.history(ref, page, PAGE_SIZE);
    if (page === 1) latest = updates[0]?.version ?? 0;
    const entry = updates.find((u) => u.version === version);
    if (entry) return { entry, latest };
    const oldest = updates[updates.length - 1]?.version;
    if (updates.length < PAGE_SIZE || oldest === undefined || oldest < version) return { latest };
  }
}

export const configAtVersion: CommandHandler = async (ctx, _args, opts) => {
  const project = await ctx.requireProject();
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  await requireExisting(ctx, backend, ref);
  const version = opts.version as number;
  const { entry, latest } = await historyEntry(backend, ref, version);
  if (!entry) {
    throw new UserError(
      `stack '${await ctx.displayName(ref)}' has no version ${version}: it is at version ${latest}`,
      'List its versions with `stackyard stack history`.',
    );
  }
  const config = await shownHistoryConfig(backend, ref, entry.config ?? {}, opts.showSecrets === true);
  if (opts.json === true) return ctx.json(config);
  const keys = Object.keys(config).sort();
  ctx.out(table(['KEY', 'VALUE'], keys.map((key) => [prettyKey(key, project), config[key]!.secret && config[key]!.value === undefined ? '[secret]' : (config[key]!.value ?? '')])));
};
