/**
 * `stack ls`, in a file of its own: listing stacks is the command run most often, so it loads neither the stack
 * secrets nor the config code the other `stack` commands need.
 */
import { formatStackRef } from '../../shared/core/names.js';
import type { StackSummary } from '../backend/backend.js';
import { selectedStack } from '../project/workspace.js';
import { stackConsolePath } from './console-path.js';
import { formatTime, relativeTime, table } from './format.js';
import type { CommandHandler } from './types.js';

export const stackLs: CommandHandler = async (ctx, _args, opts) => {
  const backend = await ctx.backend();
  let project = await ctx.project();
  const filter: { org?: string; project?: string; tagName?: string; tagValue?: string } = {};
  if (typeof opts.organization === 'string') filter.org = opts.organization;
  if (typeof opts.project === 'string') filter.project = opts.project;
  if (typeof opts.tag === 'string') {
    const at = opts.tag.indexOf('=');
    filter.tagName = at < 0 ? opts.tag : opts.tag.slice(0, at);
    if (at >= 0) filter.tagValue = opts.tag.slice(at + 1);
  }
  if (opts.all !== true && filter.project === undefined) {
    project = await ctx.requireProject();
    filter.project = project.name;
  }
  const current = project ? await selectedStack(project, backend.url, ctx.env) : undefined;
  const summaries = await backend.listStacks(filter);
  const named = await Promise.all(summaries.map(async (s) => ({ s, name: await ctx.displayName(s.ref) })));
  named.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const isCurrent = (s: StackSummary) => formatStackRef(s.ref) === current;
  if (opts.json === true) {
    ctx.json(
      named.map(({ s, name }) => ({
        name,
        current: isCurrent(s),
        ...(s.updateInProgress
          ? { updateInProgress: true }
          : s.lastUpdate !== undefined
            ? { lastUpdate: formatTime(s.lastUpdate), updateInProgress: false }
            : {}),
        ...(s.resourceCount !== undefined ? { resourceCount: s.resourceCount } : {}),
        // Pulumi's `url`: the stack's console page, which a service serves at its own origin; a local backend has none.
        ...(backend.kind === 'service' ? { url: `${backend.url.replace(/\/+$/, '')}${stackConsolePath(s.ref)}` } : {}),
      })),
    );
    return;
  }
  const rows = named.map(({ s, name }) => [
    isCurrent(s) ? `${name}*` : name,
    s.updateInProgress ? 'in progress' : s.lastUpdate !== undefined ? relativeTime(s.lastUpdate) : 'n/a',
    s.resourceCount !== undefined ? String(s.resourceCount) : 'n/a',
  ]);
  ctx.out(table(['NAME', 'LAST UPDATE', 'RESOURCE COUNT'], rows));
};
