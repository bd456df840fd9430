/**
 * The plan file, as Pulumi's `apitype.DeploymentPlanV1` (`sdk/go/common/apitype/plan.go`) and its serializer
 * (`pkg/resource/stack/plan.go`): `{manifest, config, resourcePlans: {urn: {goal, steps, state, seed}}}`, secrets
 * as `{"4dabf…": "1b47…", "ciphertext": …}` under the stack's key, never plaintext. stackyard adds `stackyard`
 * (the plan's origin, `PlanOrigin`), which Pulumi's reader (a plain `json.Decoder`) ignores.
 */
import { createHash } from 'node:crypto';
import { ENGINE_VERSION, type SecretsCrypter } from '../state/deployment.js';
import type { StepOp } from '../display/events.js';
import type { StackConfig } from '../config/program-config.js';
import { SECRET_SIG, SIG_KEY, type PropertyMap, type PropertyValue } from '../resource/properties.js';
import type { DeploymentPlan, PlanDiff, PlanGoal, PlanOrigin, ResourcePlan } from './plan-types.js';

type Json = PropertyValue;
interface DiffV1 { adds?: PropertyMap; deletes?: string[]; updates?: PropertyMap }
interface GoalV1 {
  type: string; name: string; custom: boolean; inputDiff?: DiffV1; outputDiff?: DiffV1; parent?: string; protect?: boolean;
  dependencies?: string[]; provider?: string; propertyDependencies?: Record<string, string[]>; deleteBeforeReplace?: boolean;
  ignoreChanges?: string[]; additionalSecretOutputs?: string[]; aliases?: string[]; structuredAliases?: unknown[]; id?: string;
  customTimeouts?: { create?: number; update?: number; delete?: number; read?: number };
}
interface ResourcePlanV1 { goal?: GoalV1; steps?: string[]; state: PropertyMap | null; seed?: string }
/** Pulumi's `DeploymentPlanV1`, with stackyard's `stackyard` field. */
export interface DeploymentPlanV1 {
  manifest: { time: string; magic: string; version: string; plugins?: unknown[] };
  config?: Record<string, unknown>;
  resourcePlans?: Record<string, ResourcePlanV1>;
  stackyard?: PlanOrigin;
}

/** A plan file that cannot be read: says what to do. */
export class PlanFileError extends Error {
  override readonly name = 'PlanFileError';
}

function isSecretObject(v: Json): v is { [k: string]: Json } {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && v[SIG_KEY] === SECRET_SIG;
}

/** Replaces every secret of `v` by what `swap` gives for it, in document order. */
function mapSecretValues(v: Json, swap: (secret: { [k: string]: Json }) => Json): Json {
  if (Array.isArray(v)) return v.map((x) => mapSecretValues(x, swap));
  if (v === null || typeof v !== 'object') return v;
  if (isSecretObject(v)) return swap(v);
  const out: { [k: string]: Json } = {};
  for (const [k, x] of Object.entries(v)) out[k] = mapSecretValues(x as Json, swap);
  return out;
}

/** Encrypts (or decrypts) every secret in `docs` with one crypter call. */
async function transformSecrets(docs: Json[], crypter: SecretsCrypter, mode: 'encrypt' | 'decrypt'): Promise<Json[]> {
  const inputs: string[] = [];
  for (const d of docs) {
    mapSecretValues(d, (s) => {
      if (mode === 'encrypt') inputs.push(JSON.stringify(s.value ?? null));
      else if (typeof s.ciphertext === 'string') inputs.push(s.ciphertext);
      else if (typeof s.plaintext !== 'string') throw new PlanFileError('the plan file holds a secret without ciphertext');
      return s;
    });
  }
  const outputs = inputs.length ? await (mode === 'encrypt' ? crypter.encrypt(inputs) : crypter.decrypt(inputs)) : [];
  let next = 0;
  return docs.map((d) =>
    mapSecretValues(d, (s): Json => {
      if (mode === 'encrypt') return { [SIG_KEY]: SECRET_SIG, ciphertext: outputs[next++]! };
      const plain = typeof s.ciphertext === 'string' ? outputs[next++]! : (s.plaintext as string);
      return { [SIG_KEY]: SECRET_SIG, value: JSON.parse(plain) as Json };
    }),
  );
}

function diffV1(d: PlanDiff): DiffV1 {
  return {
    ...(Object.keys(d.adds).length ? { adds: d.adds } : {}),
    ...(d.deletes.length ? { deletes: d.deletes } : {}),
    ...(Object.keys(d.updates).length ? { updates: d.updates } : {}),
  };
}

function goalV1(g: PlanGoal): GoalV1 {
  return {
    type: g.type, name: g.name, custom: g.custom, inputDiff: diffV1(g.inputDiff), outputDiff: diffV1(g.outputDiff),
    ...(g.parent ? { parent: g.parent } : {}),
    protect: g.protect,
    ...(g.dependencies.length ? { dependencies: g.dependencies } : {}),
    ...(g.provider ? { provider: g.provider } : {}),
    ...(Object.keys(g.propertyDependencies).length ? { propertyDependencies: g.propertyDependencies } : {}),
    ...(g.deleteBeforeReplace !== undefined ? { deleteBeforeReplace: g.deleteBeforeReplace } : {}),
    ...(g.ignoreChanges.length ? { ignoreChanges: g.ignoreChanges } : {}),
    ...(g.additionalSecretOutputs.length ? { additionalSecretOutputs: g.additionalSecretOutputs } : {}),
    ...(g.aliases.length ? { aliases: g.aliases } : {}),
    ...(g.id ? { id: g.id } : {}),
    customTimeouts: g.customTimeouts,
  };
}

/** The configuration as Pulumi's `config.Map` serializes it: secure values as `{"secure": <ciphertext>}`. */
async function configV1(config: StackConfig, crypter: SecretsCrypter): Promise<Record<string, unknown>> {
  const keys = Object.keys(config).sort();
  const secret = keys.filter((k) => config[k]!.secret);
  const cipher = secret.length ? await crypter.encrypt(secret.map((k) => config[k]!.value)) : [];
  return Object.fromEntries(
    keys.map((k) => {
      const c = config[k]!;
      if (c.secret) return [k, { secure: cipher[secret.indexOf(k)] }];
      return [k, c.object ? (JSON.parse(c.value) as unknown) : c.value];
    }),
  );
}

/** Writes a plan as Pulumi's plan file (JSON, indented by four spaces as `pulumi preview --save-plan` writes it). */
export async function writePlanFile(plan: DeploymentPlan, config: StackConfig, crypter: SecretsCrypter): Promise<string> {
  const entries = [...plan.resourcePlans].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const raw = entries.map(([, rp]) => (rp.goal ? { ...rp, goal: goalV1(rp.goal) } : rp) as unknown as Json);
  const encrypted = await transformSecrets(raw, crypter, 'encrypt');
  const resourcePlans: Record<string, ResourcePlanV1> = {};
  entries.forEach(([urn], i) => {
    const rp = encrypted[i] as unknown as ResourcePlan & { goal?: GoalV1 };
    resourcePlans[urn] = { ...(rp.goal ? { goal: rp.goal } : {}), ...(rp.ops.length ? { steps: rp.ops } : {}), state: rp.outputs ?? null, ...(rp.seed ? { seed: rp.seed } : {}) };
  });
  const doc: DeploymentPlanV1 = { manifest: plan.manifest, config: await configV1(config, crypter), resourcePlans, ...(plan.origin ? { stackyard: plan.origin } : {}) };
  return `${JSON.stringify(doc, null, 4)}\n`;
}

function planDiff(d: DiffV1 | undefined): PlanDiff {
  return { adds: d?.adds ?? {}, deletes: d?.deletes ?? [], updates: d?.updates ?? {} };
}

function planGoal(g: GoalV1): PlanGoal {
  return {
    type: g.type, name: g.name, custom: g.custom, parent: g.parent || undefined, protect: g.protect === true,
    dependencies: g.dependencies ?? [], provider: g.provider || undefined, propertyDependencies: g.propertyDependencies ?? {},
    deleteBeforeReplace: g.deleteBeforeReplace, ignoreChanges: g.ignoreChanges ?? [], additionalSecretOutputs: g.additionalSecretOutputs ?? [],
    // Pulumi's reader drops `aliases` and compares `structuredAliases`; stackyard compares alias URNs when the plan has them
    aliases: g.aliases as string[], id: g.id || undefined, customTimeouts: g.customTimeouts ?? {},
    inputDiff: planDiff(g.inputDiff), outputDiff: planDiff(g.outputDiff),
  };
}

/** Reads a plan file (ours or one `pulumi preview --save-plan` wrote), decrypting its secrets with the stack's key. */
export async function readPlanFile(text: string, crypter: SecretsCrypter): Promise<DeploymentPlan> {
  let doc: DeploymentPlanV1;
  try {
    doc = JSON.parse(text) as DeploymentPlanV1;
  } catch (err) {
    throw new PlanFileError(`the plan file is not JSON (${(err as Error).message}); write it with \`stackyard preview --save-plan <file>\``);
  }
  if (!doc || typeof doc !== 'object' || !doc.manifest) throw new PlanFileError('the plan file has no manifest: it is not an update plan (write one with `stackyard preview --save-plan <file>`)');
  const entries = Object.entries(doc.resourcePlans ?? {});
  let decrypted: Json[];
  try {
    decrypted = await transformSecrets(entries.map(([, rp]) => rp as unknown as Json), crypter, 'decrypt');
  } catch (err) {
    if (err instanceof PlanFileError) throw err;
    throw new PlanFileError(`the plan's secrets cannot be decrypted with this stack's key (${(err as Error).message}): was the plan made for another stack?`);
  }
  const resourcePlans = new Map<string, ResourcePlan>();
  entries.forEach(([urn], i) => {
    const rp = decrypted[i] as unknown as ResourcePlanV1;
    resourcePlans.set(urn, { goal: rp.goal ? planGoal(rp.goal) : undefined, ops: (rp.steps ?? []) as StepOp[], outputs: rp.state ?? undefined, seed: rp.seed });
  });
  return { manifest: doc.manifest, config: doc.config, resourcePlans, origin: doc.stackyard };
}

/** A new plan's manifest, as Pulumi's `NewPlan` makes it. */
export function planManifest(now: Date): DeploymentPlan['manifest'] {
  return { time: now.toISOString(), magic: createHash('sha256').update(ENGINE_VERSION).digest('hex'), version: ENGINE_VERSION };
}
