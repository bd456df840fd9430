/**
 * `state delete`, `state unprotect` and `state repair`: edits of the current deployment, checked like Pulumi's
 * (`edit.DeleteResource`, integrity before and after) and written back through import, so each edit is a new
 * version and the previous state stays in history.
 */
import { isNotFound, type Backend, type StackRef, type UntypedDeployment } from '../backend/backend.js';
import { UserError } from '../output/errors.js';
import type { CommandContext } from './context.js';
import type { CommandHandler } from './types.js';

/** A resource of the exported state, as the state commands read and edit it. */
export interface StoredResource {
  urn: string;
  id?: string;
  type?: string;
  protect?: boolean;
  delete?: boolean;
  parent?: string;
  provider?: string;
  dependencies?: string[];
  propertyDependencies?: Record<string, string[]>;
  deletedWith?: string;
  replaceWith?: string[];
  taint?: boolean;
}

/** A stack's state, loaded for an edit. */
export interface Loaded {
  backend: Backend;
  ref: StackRef;
  deployment: UntypedDeployment;
  resources: StoredResource[];
}

/** Loads the state of the stack `opts.stack` (or the selected one). */
export async function load(ctx: CommandContext, opts: Record<string, unknown>): Promise<Loaded> {
  const { backend, ref } = await ctx.resolveStack(opts.stack as string | undefined);
  const deployment = await backend.exportDeployment(ref).catch(async (error: unknown) => {
    if (isNotFound(error)) {
      throw new UserError(`no stack named '${await ctx.displayName(ref)}' found`, 'List stacks with `stackyard stack ls`.');
    }
    throw error;
  });
  const resources = ((deployment.deployment.resources ?? []) as StoredResource[]).map((r) => ({ ...r }));
  return { backend, ref, deployment, resources };
}

/** Checks the edited state the way the engine would load it, then stores it as the stack's next version. */
export async function save(loaded: Loaded, resources: StoredResource[], command = 'state edit'): Promise<void> {
  const { verifyIntegrity } = await import('../engine/state/deployment.js');
  try {
    verifyIntegrity(resources as unknown as Parameters<typeof verifyIntegrity>[0]);
  } catch (error) {
    throw new UserError(`the edit would leave an invalid state (${(error as Error).message}); nothing was changed`);
  }
  const deployment: UntypedDeployment = { ...loaded.deployment, deployment: { ...loaded.deployment.deployment, resources } };
  try {
    await loaded.backend.importDeployment(loaded.ref, deployment);
  } catch (error) {
    throw refusedWhileUpdating(error, command) ?? error;
  }
}

/**
 * The edit is stored the way an import is, so the service's refusal during a live update speaks of importing; the
 * user ran `command`, and both backends' refusals are worded the same from here.
 */
export function refusedWhileUpdating(error: unknown, command: string): UserError | undefined {
  const status = (error as { status?: unknown })?.status;
  const message = error instanceof Error ? error.message : '';
  if (status !== 409 || !/in progress/i.test(message)) return undefined;
  const running = /update (\S+) by (\S+)/i.exec(message);
  return new UserError(
    `\`stackyard ${command}\` cannot change the state while an update is in progress` +
      `${running ? ` (update ${running[1]} by ${running[2]})` : ''}; nothing was changed`,
    'Wait for it to finish, or run `stackyard cancel` if it is no longer running, then retry.',
  );
}

/** The single resource with this URN; several (e.g. one pending deletion) need the user to clean up by hand. */
export function locate(resources: StoredResource[], urn: string): StoredResource {
  const matches = resources.filter((r) => r.urn === urn);
  if (matches.length === 0) {
    throw new UserError(`No such resource "${urn}" exists in the current state`, 'List the URNs with `stackyard stack --show-urns`.');
  }
  if (matches.length > 1) {
    throw new UserError(
      `Resource URN ambiguously referred to multiple resources (ids ${matches.map((m) => m.id ?? '(none)').join(', ')})`,
      'Edit the exported state by hand and import it with `stackyard stack import`.',
    );
  }
  return matches[0]!;
}

/** Resources that depend on `condemned`, directly or through each other: children, dependencies, deletedWith, provider. */
function dependents(resources: StoredResource[], condemned: StoredResource): StoredResource[] {
  const targets = new Set([condemned.urn]);
  const providerRef = condemned.type?.startsWith('pulumi:providers:') ? `${condemned.urn}::${condemned.id ?? ''}` : undefined;
  const found: StoredResource[] = [];
  for (const r of resources) {
    if (r === condemned) continue;
    const refs = [
      r.parent,
      r.deletedWith,
      ...(r.dependencies ?? []),
      ...Object.values(r.propertyDependencies ?? {}).flat(),
    ];
    const usesProvider = r.provider !== undefined && (r.provider === providerRef || found.some((f) => r.provider === `${f.urn}::${f.id ?? ''}`));
    if (usesProvider || refs.some((u) => u !== undefined && targets.has(u))) {
      found.push(r);
      targets.add(r.urn);
    }
  }
  return found;
}

export const stateDelete: CommandHandler = async (ctx, args, opts) => {
  const urn = args[0];
  if (opts.all === true && urn) throw new UserError('cannot specify a resource URN when deleting all resources');
  if (opts.all !== true && !urn) throw new UserError('missing resource URN', 'Pass the URN: `stackyard state delete \'<urn>\'` (or --all).');
  const loaded = await load(ctx, opts);
  const force = opts.force === true;
  const unprotect = (r: StoredResource) => {
    if (!r.protect) return;
    if (!force) {
      throw new UserError(`${r.urn} can't be safely deleted because it is protected`, 'Re-run this command with --force to force deletion.');
    }
    ctx.warn(`deleting protected resource ${r.urn} due to presence of --force`);
  };

  let remaining: StoredResource[];
  if (opts.all === true) {
    loaded.resources.forEach(unprotect);
    remaining = [];
  } else {
    const condemned = locate(loaded.resources, urn!);
    unprotect(condemned);
    const dependent = dependents(loaded.resources, condemned);
    if (dependent.length > 0 && opts.targetDependents !== true) {
      throw new UserError(
        `${condemned.urn} can't be safely deleted because the following resources depend on it:\n` +
          dependent.map((d) => ` * ${JSON.stringify(d.urn.slice(d.urn.lastIndexOf('::') + 2)).padEnd(15)} (${d.urn})`).join('\n'),
        'Delete those resources first or pass --target-dependents.',
      );
    }
    dependent.forEach(unprotect);
    const doomed = new Set([condemned, ...dependent]);
    remaining = loaded.resources.filter((r) => !doomed.has(r));
  }
  await ctx.confirm(opts.yes, 'edit the state', "This command will edit your stack's state directly.");
  await save(loaded, remaining, 'state delete');
  ctx.out(opts.all === true ? 'Resources deleted' : 'Resource deleted');
};

export const stateUnprotect: CommandHandler = async (ctx, args, opts) => {
  const urn = args[0];
  if (opts.all === true && urn) throw new UserError('cannot specify a resource URN when unprotecting all resources');
  if (opts.all !== true && !urn) throw new UserError('missing resource URN', 'Pass the URN: `stackyard state unprotect \'<urn>\'` (or --all).');
  const loaded = await load(ctx, opts);
  const targets = opts.all === true ? loaded.resources : [locate(loaded.resources, urn!)];
  if (!targets.some((r) => r.protect)) {
    ctx.out(opts.all === true ? 'No resources are protected' : 'Resource is not protected');
    return;
  }
  // Unprotecting loses nothing, so without a terminal it proceeds; on one it asks unless --yes.
  if (ctx.interactive) await ctx.confirm(opts.yes, 'edit the state', "This command will edit your stack's state directly.");
  for (const r of targets) delete r.protect;
  await save(loaded, loaded.resources, 'state unprotect');
  ctx.out(opts.all === true ? 'All resources unprotected' : 'Resource unprotected');
};

export const stateRepair: CommandHandler = async (ctx, _args, opts) => {
  const loaded = await load(ctx, opts);
  const pending = (loaded.deployment.deployment.pending_operations ?? []) as { type?: string; resource?: { urn?: string } }[];
  if (pending.length === 0) {
    ctx.out('The state has no pending operations; nothing to repair.');
    return;
  }
  ctx.out(`The state has ${pending.length} pending operation(s) left by an interrupted update:`);
  for (const op of pending) ctx.out(`    ${String(op.type)} ${String(op.resource?.urn)}`);
  if (pending.some((op) => op.type === 'creating')) {
    ctx.warn('a pending create may have made a cloud resource the state does not know; check for it and import or delete it');
  }
  await ctx.confirm(opts.yes, 'clear the pending operations', 'This will remove these pending operations from the state.');
  const deployment = { ...loaded.deployment.deployment };
  delete deployment.pending_operations;
  await save({ ...loaded, deployment: { ...loaded.deployment, deployment } }, loaded.resources, 'state repair');
  ctx.out(`Cleared ${pending.length} pending operation(s); the previous state is kept as an earlier version in the stack's history.`);
};
