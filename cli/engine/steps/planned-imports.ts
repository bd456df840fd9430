/**
 * The import deployment behind `stackyard import`, as Pulumi's `pkg/resource/deploy/import.go` runs it: no program
 * runs; every resource of the state is kept as a same step (in state order), the stack is created when the state has
 * none, the providers the imports need are found or created (default ones from the stack's config, as a program's
 * would be), and each resource is adopted by an import step (`ImportStep.Apply` with `planned`): read from its
 * provider by id, recorded with the inputs read (or only the `properties` asked for), checked, and protected as
 * asked. Imports whose parent is imported too wait for it; the others run in parallel.
 */
import { randomBytes } from 'node:crypto';
import type { ResourceState } from '../state/deployment.js';
import { defaultProviderUrn } from '../plugins/providers/provider-registry.js';
import { UNKNOWN, type PropertyMap } from '../resource/properties.js';
import { createUrn, formatProviderRef, isProviderType, packageOfType, urnName, urnType, STACK_TYPE } from '../resource/urn.js';
import type { ProviderSteps } from './provider-steps.js';
import type { RunLedger } from './run-ledger.js';
import { bareGoal, ShuttingDownError, type RunContext } from './step-types.js';

/** One resource to import (Pulumi's `deploy.Import`), its parent and provider as URNs. */
export interface PlannedImport {
  type: string;
  /** The resource's name (its logical name: the last part of its URN). */
  name: string;
  /** The id its provider reads it by; none for components and providers. */
  id?: string;
  parent?: string;
  /** The URN of the explicit provider to read it with (default: the package's default provider). */
  provider?: string;
  version?: string;
  pluginDownloadURL?: string;
  protect: boolean;
  /** Only these read inputs are recorded (default: all of them). */
  properties?: string[];
  component?: boolean;
  remote?: boolean;
  /**
   * A provider's configuration (providers declared among the imports are created, never read); for other resources,
   * values for the inputs their provider's Read does not return.
   */
  inputs?: PropertyMap;
}

/** An import on its way: its URN, parent and provider reference settled. */
interface ImportStep {
  imp: PlannedImport;
  urn: string;
  parent: string;
  ref?: string;
}

/** Runs the import deployment on the run's parts; a failed step fails the run (`ctx.fail`). */
export async function runPlannedImports(ctx: RunContext, ledger: RunLedger, providers: ProviderSteps, imports: readonly PlannedImport[]): Promise<void> {
  keepExisting(ctx, ledger);
  const stack = await stackResource(ctx, ledger);
  let refs: Map<string, string>;
  try {
    refs = await registerProviders(ctx, ledger, providers, imports);
  } catch (err) {
    if (!(err instanceof ShuttingDownError)) ctx.fail(undefined, err);
    return;
  }
  const steps = planSteps(ctx, imports, stack.urn, refs);
  if (steps) await runInWaves(ctx, ledger, steps);
  if (stack.created) ctx.emit('create', stack.state.urn, STACK_TYPE, 'done', { new: stack.state });
}

/** Pulumi's `registerExistingResources`: each live resource of the state, in order, as a same step. */
function keepExisting(ctx: RunContext, ledger: RunLedger): void {
  for (const r of ctx.options.base.resources) {
    if (r.delete) continue;
    ledger.live.delete(r.urn);
    ledger.registeredUrns.add(r.urn);
    ledger.carry(r);
    ctx.emit('same', r.urn, r.type, 'start', { old: r, new: r });
    ctx.emit('same', r.urn, r.type, 'done', { old: r, new: r });
  }
}

/** The stack resource of the state, or a new one (its create ends once the imports are done, as Pulumi shows it). */
async function stackResource(ctx: RunContext, ledger: RunLedger): Promise<{ urn: string; created: boolean; state: ResourceState }> {
  const existing = ctx.options.base.resources.find((r) => r.type === STACK_TYPE && !r.parent && !r.delete);
  if (existing) return { urn: existing.urn, created: false, state: existing };
  const { stack, project } = ctx.options;
  const urn = createUrn(stack, project, undefined, STACK_TYPE, `${project}-${stack}`);
  const state: ResourceState = { urn, custom: false, type: STACK_TYPE, inputs: {}, outputs: {} };
  ctx.emit('create', urn, STACK_TYPE, 'start', { new: state });
  ledger.registeredUrns.add(urn);
  ledger.record(urn, state);
  await ctx.save();
  return { urn, created: true, state };
}

/** A live provider of the state by URN, as a reference. */
function baseProviderRef(ctx: RunContext, urn: string): string | undefined {
  const state = ctx.options.base.resources.find((r) => r.urn === urn && !r.delete);
  return state?.id ? formatProviderRef(state.urn, state.id) : undefined;
}

/**
 * Pulumi's `registerProviders`: the provider reference of each provider URN the imports use. Providers of the state
 * are used as they are; default providers missing from it are created from the stack's config; explicit ones are
 * created with the configuration declared among the imports (none when they are only referenced).
 */
async function registerProviders(ctx: RunContext, ledger: RunLedger, providers: ProviderSteps, imports: readonly PlannedImport[]): Promise<Map<string, string>> {
  const { stack, project } = ctx.options;
  const refs = new Map<string, string>();
  const declared = new Map<string, PlannedImport>();
  for (const imp of imports) {
    if (isProviderType(imp.type)) declared.set(createUrn(stack, project, imp.parent, imp.type, imp.name), imp);
  }
  const creating: Promise<void>[] = [];
  const explicit = new Set<string>();
  for (const imp of imports) {
    if ((imp.component && !imp.remote) || isProviderType(imp.type)) continue;
    if (imp.provider) {
      explicit.add(imp.provider);
      continue;
    }
    const urn = defaultProviderUrn(stack, project, packageOfType(imp.type), imp.version, imp.pluginDownloadURL);
    if (refs.has(urn)) continue;
    const existing = baseProviderRef(ctx, urn);
    refs.set(urn, existing ?? '');
    if (!existing) creating.push(providers.providerFor(imp.type, undefined, imp.version, imp.pluginDownloadURL).then(({ ref }) => void refs.set(urn, ref)));
  }
  for (const urn of new Set([...declared.keys(), ...explicit])) {
    const existing = baseProviderRef(ctx, urn);
    if (existing) {
      refs.set(urn, existing);
      continue;
    }
    const imp = declared.get(urn);
    const inputs: PropertyMap = { ...(imp?.inputs ?? {}), ...(imp?.version ? { version: imp.version } : {}) };
    const goal = bareGoal(urnType(urn), urnName(urn), true, inputs, { parent: imp?.parent, pluginDownloadURL: imp?.pluginDownloadURL });
    ledger.registeredUrns.add(urn);
    creating.push(providers.register(goal, urn, undefined).then((res) => void refs.set(urn, formatProviderRef(urn, res.id || UNKNOWN))));
  }
  await Promise.all(creating);
  return refs;
}

/** Each import's URN, parent and provider; undefined (the run failed) for a duplicate. */
function planSteps(ctx: RunContext, imports: readonly PlannedImport[], stackUrn: string, refs: Map<string, string>): ImportStep[] | undefined {
  const { stack, project } = ctx.options;
  const steps: ImportStep[] = [];
  const seen = new Set<string>();
  for (const imp of imports) {
    if (isProviderType(imp.type)) continue;
    const parent = imp.parent || stackUrn;
    const urn = createUrn(stack, project, parent, imp.type, imp.name);
    if (seen.has(urn)) {
      ctx.fail(undefined, new Error(`duplicate import '${imp.name}' of type '${imp.type}'`));
      return undefined;
    }
    seen.add(urn);
    const old = ctx.options.base.resources.find((r) => r.urn === urn && !r.delete);
    // already imported under this id: its same step above is all there is to do
    if (old && (old.importID || old.id) === imp.id) continue;
    const providerUrn = imp.component && !imp.remote ? undefined : (imp.provider ?? defaultProviderUrn(stack, project, packageOfType(imp.type), imp.version, imp.pluginDownloadURL));
    steps.push({ imp, urn, parent, ref: providerUrn ? refs.get(providerUrn) : undefined });
  }
  return steps;
}

/** Runs the import steps, those whose parent is still to be imported after it; stops at the first failure. */
async function runInWaves(ctx: RunContext, ledger: RunLedger, steps: ImportStep[]): Promise<void> {
  const pending = new Map(steps.map((s) => [s.urn, s]));
  while (pending.size) {
    const ready = [...pending.values()].filter((s) => !pending.has(s.parent));
    for (const s of ready) pending.delete(s.urn);
    await Promise.allSettled(ready.map((s) => importOne(ctx, ledger, s)));
    if (isStopped(ctx)) return;
  }
}

/** True once the run may start nothing new. */
function isStopped(ctx: RunContext): boolean {
  try {
    ctx.assertRunning();
    return false;
  } catch {
    return true;
  }
}

/** One import step (Pulumi's `ImportStep.Apply` of a planned import). */
async function importOne(ctx: RunContext, ledger: RunLedger, { imp, urn, parent, ref }: ImportStep): Promise<void> {
  const custom = !imp.component;
  const pending: ResourceState = { urn, custom, type: imp.type, id: imp.id, parent, protect: imp.protect || undefined, provider: ref };
  try {
    ctx.assertRunning();
    ctx.emit('import', urn, imp.type, 'start', { new: pending });
    if (ctx.options.base.resources.some((r) => r.urn === urn && !r.delete)) throw new Error(`resource '${urn}' already exists`);
    if (urnType(parent) !== STACK_TYPE && !ledger.registered.has(parent)) throw new Error(`unknown parent '${parent}' for resource '${urn}'`);
    const now = new Date().toISOString();
    let state: ResourceState = { ...pending, id: undefined, inputs: {}, outputs: {}, created: now, modified: now };
    let read: PropertyMap = {};
    if (custom) ({ read, state } = await readForImport(ctx, imp, urn, ref!, state));
    ledger.registeredUrns.add(urn);
    ledger.record(urn, state);
    await ctx.save();
    // as Pulumi's ImportStep, an old state with what was read, so the display shows the inputs kept as a diff
    ctx.emit('import', urn, imp.type, 'done', { old: { ...state, inputs: read, created: undefined, modified: undefined }, new: state });
  } catch (err) {
    if (err instanceof ShuttingDownError) return;
    ctx.emit('import', urn, imp.type, 'failed', { error: String(err), new: pending });
    ctx.fail(urn, err);
  }
}

/**
 * Reads the resource by its id and checks the inputs to record, warning (never failing) on check failures; `read`
 * is every input read (with the supplied ones), `state` the state to record.
 */
async function readForImport(ctx: RunContext, imp: PlannedImport, urn: string, ref: string, base: ResourceState): Promise<{ read: PropertyMap; state: ResourceState }> {
  const provider = await ctx.providerByRef(ref);
  const rref = { urn, name: imp.name, type: imp.type };
  const read = await ctx.providerStep(() => provider.read(rref, imp.id!, {}, {}));
  if (!read) throw new Error(`resource '${imp.id}' does not exist`);
  if (!read.inputs) throw new Error(`provider does not support importing resources; please try updating the '${packageOfType(imp.type)}' plugin`);
  // supplied inputs fill what the provider could not read (Pulumi's mergeSuppliedProperties)
  const merged: PropertyMap = { ...read.inputs };
  for (const [k, v] of Object.entries(imp.inputs ?? {})) if (merged[k] === undefined || merged[k] === null) merged[k] = v;
  const inputs = imp.properties?.length ? Object.fromEntries(imp.properties.filter((p) => p in merged).map((p) => [p, merged[p]])) : merged;
  const checked = await ctx.slots.admit(() => provider.check(rref, merged, inputs, randomBytes(32)));
  if (checked.failures.length) {
    const hint = imp.properties?.length
      ? 'Try specifying a different set of properties to import with in the future.'
      : `This is almost certainly a bug in the \`${packageOfType(imp.type)}\` provider.`;
    ctx.events.diag?.({
      severity: 'warning',
      urn,
      message: `One or more imported inputs failed to validate. ${hint} The import will still proceed, but you will need to edit the generated code after copying it into your program.`,
    });
    for (const f of checked.failures) {
      const message = f.property
        ? `${imp.type} resource '${imp.name}': property ${f.property} value ${JSON.stringify(inputs[f.property] ?? null)} has a problem: ${f.reason}`
        : `${imp.type} resource '${imp.name}' has a problem: ${f.reason}`;
      ctx.events.diag?.({ severity: 'warning', urn, message });
    }
  }
  return { read: merged, state: { ...base, id: read.id || imp.id, inputs, outputs: read.outputs } };
}
