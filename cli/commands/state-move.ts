/**
 * `state move --source <stack> --dest <stack> <urn>...`: moves resources (with their children, and with
 * `--include-parents` their parents) from one stack's state to another's, as `pulumi state move` does
 * (pkg/cmd/pulumi/state/state_move.go): providers are copied, not moved; URNs take the destination's stack and
 * project; parents outside the move become the destination's root stack; dependencies across the two stacks are
 * dropped and listed. Secrets are decrypted with the source stack's key and re-encrypted with the destination's.
 * The destination is written first; if the source cannot be written, the destination is put back.
 */
import { formatStackRef, type StackRef } from '../../shared/core/names.js';
import { isNotFound, secretsProviderFor, type Backend, type UntypedDeployment } from '../backend/backend.js';
import { revealSecrets, sealSecrets } from '../backend/deployment-secrets.js';
import { UserError } from '../output/errors.js';
import type { CommandContext } from './context.js';
import type { CommandHandler } from './types.js';
import type { StoredResource } from './state.js';

const STACK_TYPE = 'pulumi:pulumi:Stack';
const isProvider = (r: StoredResource) => r.type?.startsWith('pulumi:providers:') === true;
const isRootStack = (r: StoredResource) => r.type === STACK_TYPE && !r.parent;
const providerRef = (r: StoredResource) => `${r.urn}::${r.id ?? ''}`;

interface Side {
  ref: StackRef;
  deployment: UntypedDeployment;
  resources: StoredResource[];
}

async function loadSide(ctx: CommandContext, backend: Backend, name: string | undefined): Promise<Side> {
  const { ref } = await ctx.resolveStack(name);
  const deployment = await backend.exportDeployment(ref).catch(async (error: unknown) => {
    if (isNotFound(error)) throw new UserError(`no stack named '${await ctx.displayName(ref)}' found`, 'List stacks with `stackyard stack ls`.');
    throw error;
  });
  // Plaintext from here on: the destination's import encrypts it with its own key.
  await revealSecrets(backend, ref, deployment);
  const resources = ((deployment.deployment.resources ?? []) as StoredResource[]).map((r) => structuredClone(r));
  return { ref, deployment, resources };
}

/** `urn:pulumi:<stack>::<project>::…` on the destination's stack and project. */
function onStack(urn: string, ref: StackRef): string {
  const parts = urn.split('::');
  if (parts.length < 4) return urn;
  return [`urn:pulumi:${ref.stack}`, ref.project, ...parts.slice(2)].join('::');
}

interface Broken {
  resource: string;
  dependency: string;
  kind: string;
}

/** Drops `r`'s dependencies on resources in `other` (not its parent), returning what was dropped. */
function breakDependencies(r: StoredResource, other: Set<string>): Broken[] {
  const broken: Broken[] = [];
  const keep = (u: string, kind: string) => {
    if (!other.has(u)) return true;
    broken.push({ resource: r.urn, dependency: u, kind });
    return false;
  };
  if (r.dependencies) r.dependencies = r.dependencies.filter((u) => keep(u, 'dependency'));
  if (r.propertyDependencies) {
    r.propertyDependencies = Object.fromEntries(Object.entries(r.propertyDependencies).map(([k, us]) => [k, us.filter((u) => keep(u, `property dependency (${k})`))]));
  }
  if (r.deletedWith && !keep(r.deletedWith, 'deleted with')) delete r.deletedWith;
  if (r.replaceWith) r.replaceWith = r.replaceWith.filter((u) => keep(u, 'replace with'));
  return broken;
}

/** Rewrites a moved resource's URN and references for the destination (`rewrite` maps old URNs and provider refs). */
function rewriteFor(r: StoredResource, dest: StackRef, rewrite: Map<string, string>): void {
  const map = (u: string) => rewrite.get(u) ?? onStack(u, dest);
  r.urn = onStack(r.urn, dest);
  if (r.parent) r.parent = map(r.parent);
  if (r.provider) r.provider = rewrite.get(r.provider) ?? onStack(r.provider, dest);
  if (r.dependencies) r.dependencies = r.dependencies.map(map);
  if (r.propertyDependencies) r.propertyDependencies = Object.fromEntries(Object.entries(r.propertyDependencies).map(([k, us]) => [k, us.map(map)]));
  if (r.deletedWith) r.deletedWith = map(r.deletedWith);
  if (r.replaceWith) r.replaceWith = r.replaceWith.map(map);
}

async function verify(resources: StoredResource[], which: string): Promise<void> {
  const { verifyIntegrity } = await import('../engine/state/deployment.js');
  try {
    verifyIntegrity(resources as unknown as Parameters<typeof verifyIntegrity>[0]);
  } catch (error) {
    throw new UserError(`the move would leave an invalid ${which} state (${(error as Error).message}); nothing was changed`);
  }
}

export const stateMove: CommandHandler = async (ctx, args, opts) => {
  const urns = args.flatMap((a) => (Array.isArray(a) ? (a as string[]) : a === undefined ? [] : [a]));
  const sourceName = typeof opts.source === 'string' ? opts.source : undefined;
  const destName = typeof opts.dest === 'string' ? opts.dest : undefined;
  if (!sourceName && !destName) throw new UserError('at least one of --source or --dest must be provided');
  if (urns.length === 0) throw new UserError('missing resource URN', 'Pass the URNs to move: `stackyard state move --dest <stack> \'<urn>\'`.');
  const { backend } = await ctx.resolveStack(sourceName);
  const source = await loadSide(ctx, backend, sourceName);
  const dest = await loadSide(ctx, backend, destName);
  if (formatStackRef(source.ref) === formatStackRef(dest.ref)) throw new UserError('the source and destination stacks are the same');
  await verify(source.resources, 'source');
  if (source.resources.length === 0) throw new UserError('source stack has no resources');

  // What moves: the named resources, their descendants, and with --include-parents their ancestors.
  const byUrn = new Map(source.resources.map((r) => [r.urn, r]));
  const moving = new Map<string, StoredResource>();
  for (const urn of urns) {
    const r = byUrn.get(urn);
    if (!r) {
      ctx.warn(`Resource ${urn} not found in source stack`);
      continue;
    }
    if (isProvider(r)) throw new UserError('cannot move providers. Only resources can be moved, and providers will be included automatically');
    moving.set(r.urn, r);
  }
  if (moving.size === 0) throw new UserError('no resources found to move', 'List the URNs with `stackyard stack --show-urns`.');
  if (opts.includeParents === true) {
    for (const r of [...moving.values()]) {
      for (let p = r.parent ? byUrn.get(r.parent) : undefined; p; p = p.parent ? byUrn.get(p.parent) : undefined) {
        if (!isRootStack(p) && !isProvider(p)) moving.set(p.urn, p);
      }
    }
  }
  for (let grew = true; grew; ) {
    grew = false;
    for (const r of source.resources) {
      if (!moving.has(r.urn) && !isProvider(r) && r.parent && moving.has(r.parent)) {
        moving.set(r.urn, r);
        grew = true;
      }
    }
  }
  for (const r of moving.values()) if (isRootStack(r)) moving.delete(r.urn);
  const moved = source.resources.filter((r) => moving.has(r.urn));
  const remaining = source.resources.filter((r) => !moving.has(r.urn));
  const movingUrns = new Set(moving.keys());
  const remainingUrns = new Set(remaining.map((r) => r.urn));
  const brokenInSource = remaining.flatMap((r) => breakDependencies(r, movingUrns));

  // The destination: its root stack (made if missing), then copies of the providers, then the moved resources.
  const destResources = [...dest.resources];
  let root = destResources.find(isRootStack);
  if (!root) {
    root = { urn: `urn:pulumi:${dest.ref.stack}::${dest.ref.project}::${STACK_TYPE}::${dest.ref.project}-${dest.ref.stack}`, type: STACK_TYPE, custom: false } as StoredResource;
    destResources.unshift(root);
  }
  const destByUrn = new Map(destResources.map((r) => [r.urn, r]));
  const rewrite = new Map<string, string>();
  const brokenInDest: Broken[] = [];
  const neededProviders = new Set(moved.map((r) => r.provider).filter((p): p is string => p !== undefined));
  for (const provider of remaining.filter((r) => isProvider(r) && neededProviders.has(providerRef(r)))) {
    const copy = structuredClone(provider);
    brokenInDest.push(...breakDependencies(copy, remainingUrns));
    if (!copy.parent || !movingUrns.has(copy.parent)) copy.parent = root.urn;
    rewriteFor(copy, dest.ref, rewrite);
    const existing = destByUrn.get(copy.urn);
    if (existing) {
      if (existing.id === copy.id || JSON.stringify((existing as { inputs?: unknown }).inputs) === JSON.stringify((copy as { inputs?: unknown }).inputs)) {
        rewrite.set(providerRef(provider), providerRef(existing));
        continue;
      }
      throw new UserError(`provider ${copy.urn} already exists in destination stack`);
    }
    rewrite.set(providerRef(provider), providerRef(copy));
    destResources.push(copy);
  }
  for (const r of moved) {
    const copy = structuredClone(r);
    if (!copy.parent || !movingUrns.has(copy.parent)) copy.parent = root.urn;
    brokenInDest.push(...breakDependencies(copy, remainingUrns));
    rewriteFor(copy, dest.ref, rewrite);
    rewrite.set(r.urn, copy.urn);
    if (destByUrn.has(copy.urn)) throw new UserError(`resource ${copy.urn} already exists in destination stack`);
    destResources.push(copy);
  }

  ctx.out(`Planning to move the following resources from ${formatStackRef(source.ref)} to ${formatStackRef(dest.ref)}:\n`);
  for (const r of moved) ctx.out(`  - ${r.urn}`);
  ctx.out('');
  const listBroken = (title: string, broken: Broken[]) => {
    if (broken.length === 0) return;
    ctx.out(title);
    for (const b of broken) ctx.out(`  ${b.resource} has a ${b.kind} on ${b.dependency}`);
    ctx.out('');
  };
  listBroken(`The following resources remaining in ${formatStackRef(source.ref)} have dependencies on resources moved to ${formatStackRef(dest.ref)}:\n`, brokenInSource);
  listBroken(`The following resources being moved to ${formatStackRef(dest.ref)} have dependencies on resources in ${formatStackRef(source.ref)}:\n`, brokenInDest);
  if (brokenInSource.length || brokenInDest.length) {
    ctx.out('If you go ahead with moving these dependencies, it will be necessary to create the appropriate inputs and outputs in the program for the stack the resources are moved to.\n');
  }
  await ctx.confirm(opts.yes, 'perform the move', 'Do you want to perform this move?');

  await verify(destResources, 'destination');
  await verify(remaining, 'source');
  /** The side's deployment with these resources, its plaintext secrets encrypted under the side's own key. */
  const sealed = async (side: Side, resources: StoredResource[]): Promise<UntypedDeployment> => {
    const deployment = structuredClone({ ...side.deployment, deployment: { ...side.deployment.deployment, resources } }) as UntypedDeployment;
    await sealSecrets(backend, side.ref, deployment, secretsProviderFor(backend, side.ref));
    return deployment;
  };
  try {
    await backend.importDeployment(dest.ref, await sealed(dest, destResources));
  } catch (error) {
    throw new UserError(`failed to save the destination state (${(error as Error).message}); none of the resources have been moved, it is safe to try again`);
  }
  try {
    await backend.importDeployment(source.ref, await sealed(source, remaining));
  } catch (error) {
    const original = (dest.deployment.deployment.resources ?? []) as StoredResource[];
    const restored = await sealed(dest, original).then((d) => backend.importDeployment(dest.ref, d)).then(
      () => true,
      () => false,
    );
    if (restored) throw new UserError(`failed to save the source state (${(error as Error).message}); none of the resources have been moved`);
    const commands = [...moved].reverse().map((r) => `    stackyard state delete --stack ${formatStackRef(source.ref)} '${r.urn}'`).join('\n');
    throw new UserError(
      `failed to save the source state (${(error as Error).message}); the moved resources are in both stacks now`,
      `Remove them from the source stack:\n${commands}`,
    );
  }
  ctx.out(`Successfully moved resources from ${formatStackRef(source.ref)} to ${formatStackRef(dest.ref)}`);
};
