/**
 * `state protect`, `state taint`, `state untaint` and `state rename`: edits of single resources in the current
 * deployment, as `pulumi state` makes them (pkg/cmd/pulumi/state): the same selection rules, messages and checks,
 * each written back as a new version of the stack (see `save` in state.ts).
 */
import { UserError } from '../output/errors.js';
import type { CommandContext } from './context.js';
import type { CommandHandler } from './types.js';
import { load, locate, save, type StoredResource } from './state.js';

const URN_HINT = 'List the URNs with `stackyard stack --show-urns`.';

/** The URNs given as arguments (a variadic argument arrives as one list). */
function urnsOf(args: (string | string[] | undefined)[]): string[] {
  return args.flatMap((a) => (Array.isArray(a) ? a : a === undefined ? [] : [a]));
}

/** As `pulumi`: on a terminal the edit is confirmed unless --yes; without one it proceeds. */
async function confirmEdit(ctx: CommandContext, opts: Record<string, unknown>): Promise<void> {
  if (ctx.interactive) await ctx.confirm(opts.yes, 'edit the state', "This command will edit your stack's state directly.");
}

/**
 * Sets a flag on the named resources (or all with `--all`, where the command has it). Resources pending deletion are
 * not eligible, as in `pulumi`; every URN that matches nothing is reported and nothing is written.
 */
function flagCommand(verb: string, apply: (r: StoredResource) => void, hasAll: boolean): CommandHandler {
  return async (ctx, args, opts) => {
    const urns = urnsOf(args as (string | string[] | undefined)[]);
    const all = hasAll && opts.all === true;
    if (all && urns.length) throw new UserError(`cannot specify resource URNs when ${verb === 'protect' ? 'protecting' : `${verb}ing`} all resources`);
    if (!all && urns.length === 0) throw new UserError('missing resource URN', `Pass one or more URNs: \`stackyard state ${verb} '<urn>'\`${hasAll ? ' (or --all)' : ''}.`);
    const loaded = await load(ctx, opts);
    const eligible = loaded.resources.filter((r) => !r.delete);
    if (eligible.length === 0) throw new UserError(`no resources found to ${verb}`);
    const targets = all ? eligible : urns.map((urn) => eligible.find((r) => r.urn === urn) ?? urn);
    const missing = targets.filter((t): t is string => typeof t === 'string');
    if (missing.length) {
      throw new UserError(missing.map((urn) => `No such resource "${urn}" exists in the current state`).join('\n'), URN_HINT);
    }
    await confirmEdit(ctx, opts);
    for (const r of targets as StoredResource[]) apply(r);
    await save(loaded, loaded.resources);
    ctx.out(all ? `All resources ${verb}ed` : `${targets.length} resources ${verb}ed`);
  };
}

export const stateProtect = flagCommand('protect', (r) => void (r.protect = true), true);
/** Tainted resources are replaced by the next `up` (the engine reads `taint`). */
export const stateTaint = flagCommand('taint', (r) => void (r.taint = true), false);
export const stateUntaint = flagCommand('untaint', (r) => void delete r.taint, true);

/** `urn:pulumi:<stack>::<project>::<type>::<name>` with another name. */
function renamed(urn: string, name: string): string {
  const parts = urn.split('::');
  if (parts.length < 4 || !urn.startsWith('urn:pulumi:')) throw new UserError(`The provided input URN is not valid: ${urn}`);
  return `${parts.slice(0, 3).join('::')}::${name}`;
}

/** Rewrites every reference to `from` (parent, dependencies, property dependencies, deletedWith, provider). */
function rewriteReferences(resources: StoredResource[], from: string, to: string, providerRef?: { from: string; to: string }): void {
  const swap = (u: string) => (u === from ? to : u);
  for (const r of resources) {
    if (r.parent === from) r.parent = to;
    if (r.dependencies) r.dependencies = r.dependencies.map(swap);
    if (r.propertyDependencies) r.propertyDependencies = Object.fromEntries(Object.entries(r.propertyDependencies).map(([k, us]) => [k, us.map(swap)]));
    if (r.deletedWith === from) r.deletedWith = to;
    if (r.replaceWith) r.replaceWith = r.replaceWith.map(swap);
    if (providerRef && r.provider === providerRef.from) r.provider = providerRef.to;
  }
}

export const stateRename: CommandHandler = async (ctx, args, opts) => {
  const [urn, name] = args as (string | undefined)[];
  if (!urn || !name) throw new UserError('missing arguments', 'Pass the URN and the new name: `stackyard state rename \'<urn>\' <new-name>`.');
  const loaded = await load(ctx, opts);
  const resource = locate(loaded.resources, urn);
  const to = renamed(urn, name);
  if (to === urn) return ctx.out('Resource renamed');
  if (loaded.resources.some((r) => r.urn === to)) throw new UserError('The chosen new urn for the state corresponds to an already existing resource', URN_HINT);
  await confirmEdit(ctx, opts);
  resource.urn = to;
  const isProvider = resource.type?.startsWith('pulumi:providers:') === true;
  rewriteReferences(loaded.resources, urn, to, isProvider ? { from: `${urn}::${resource.id ?? ''}`, to: `${to}::${resource.id ?? ''}` } : undefined);
  await save(loaded, loaded.resources);
  ctx.out('Resource renamed');
};
