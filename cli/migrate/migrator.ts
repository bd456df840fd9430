/**
 * `stackyard migrate`: every matching stack of a source, into the backend the user is logged in to. Per stack, in
 * this order, each step durable before the next:
 *
 *   1. create the target stack with the source's tags and `stackyard:migrating-from=<source>`;
 *   2. append the source's history entries one by one (each its own version, state and config re-encrypted);
 *   3. import the current state when it differs from the last history entry's (or there is no history);
 *   4. rewrite `Pulumi.<stack>.yaml` (new ciphertexts, old provider settings removed, the original kept as .bak);
 *   5. replace the marker tag by `stackyard:migrated-from=<source>`.
 *
 * A re-run reads the target: a stack marked migrated is skipped; one still marked migrating resumes at the
 * target's version (history entries are versions, so none is added twice); any other existing stack of that name is
 * a conflict and is left alone. Secrets are decrypted with the source's provider in memory only and re-encrypted
 * with the target stack's key before anything is sent. A stack that fails is reported and the others go on.
 */
import type { Backend, StackRef, UntypedDeployment } from '../backend/backend.js';
import { isNotFound, secretsProviderFor } from '../backend/backend.js';
import { sealSecrets, secretObjects } from '../backend/deployment-secrets.js';
import { stackConfigPath, type Project } from '../project/project.js';
import { collectCiphertexts, mapSecureValues } from '../project/stack-config.js';
import type { SecretsDecrypter } from '../secrets/source-secrets.js';
import { inspectStackFile, migrateStackFile } from './stack-file.js';
import type { MigrationSource, SourceHistoryEntry, SourceStack } from './types.js';

export const MIGRATING_TAG = 'stackyard:migrating-from';
export const MIGRATED_TAG = 'stackyard:migrated-from';
const MAX_TAG_VALUE = 256;

export interface MigrationOptions {
  source: MigrationSource;
  target: Backend;
  /** The organization the stacks go to. */
  org: string;
  /** `--stack` globs over `project/stack` (or `stack`, or `org/project/stack`); empty = every stack. */
  patterns: string[];
  /** Projects whose `Pulumi.<stack>.yaml` files are migrated too, by project name. */
  projects: Map<string, Project>;
  progress(line: string): void;
}

export type PlanStatus = 'new' | 'resume' | 'migrated' | 'conflict' | 'error';

export interface StackPlan {
  source: SourceStack;
  target?: StackRef;
  status: PlanStatus;
  /** Why it is a conflict or an error. */
  reason?: string;
  resources: number;
  stateSecrets: number;
  history: number;
  /** The target's version when resuming. */
  targetVersion: number;
  configFile?: string;
  configSecrets: number;
  /** The provider that opens the state's secrets (checked while planning). */
  secretsProvider?: string;
}

export interface MigrationResult {
  migrated: string[];
  skipped: string[];
  failed: { name: string; error: string }[];
}

/** `*` any run of characters except `/`, `**` any run, `?` one character. */
function globToRegExp(glob: string): RegExp {
  let pattern = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      pattern += '.*';
      i++;
    } else if (c === '*') pattern += '[^/]*';
    else if (c === '?') pattern += '[^/]';
    else pattern += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${pattern}$`);
}

export function matchesAny(stack: SourceStack, patterns: string[]): boolean {
  if (patterns.length === 0) return true;
  const names = [stack.name, stack.stack, stack.project ? `${stack.project}/${stack.stack}` : undefined].filter((n): n is string => Boolean(n));
  return patterns.some((glob) => names.some((name) => globToRegExp(glob).test(name)));
}

const markerValue = (source: MigrationSource) => source.id.slice(0, MAX_TAG_VALUE);
const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));
const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The plan: what each matching stack would become, read from both sides without writing anything. */
export async function planMigration(options: MigrationOptions): Promise<StackPlan[]> {
  const stacks = (await options.source.stacks()).filter((stack) => matchesAny(stack, options.patterns));
  const plans: StackPlan[] = [];
  const claimed = new Set<string>();
  for (const source of stacks) {
    const plan: StackPlan = { source, status: 'new', resources: 0, stateSecrets: 0, history: 0, targetVersion: 0, configSecrets: 0 };
    plans.push(plan);
    try {
      const busy = await source.busy();
      if (busy) {
        plan.status = 'error';
        plan.reason = busy;
        continue;
      }
      const current = await source.current();
      plan.resources = Array.isArray(current?.deployment.resources) ? current.deployment.resources.length : 0;
      plan.stateSecrets = current ? secretObjects(current).filter((s) => typeof s.ciphertext === 'string').length : 0;
      plan.history = (await source.history()).length;
      if (current && plan.stateSecrets > 0) plan.secretsProvider = (await source.stateSecrets(current)).description;
      if (!source.project) {
        plan.status = 'error';
        plan.reason = `cannot tell the project of stack '${source.name}' (no resources or pulumi:project tag): run migrate inside its project folder`;
        continue;
      }
      const target = { org: options.org, project: source.project, stack: source.stack };
      plan.target = target;
      const project = options.projects.get(source.project);
      if (project) {
        plan.configFile = stackConfigPath(project, source.stack);
        plan.configSecrets = (await inspectStackFile(plan.configFile)).secrets;
      }
      const key = `${target.org}/${target.project}/${target.stack}`;
      if (claimed.has(key)) {
        plan.status = 'conflict';
        plan.reason = `another source stack also becomes ${key}`;
        continue;
      }
      claimed.add(key);
      const existing = await options.target.getStack(target).catch((error: unknown) => {
        if (isNotFound(error)) return undefined;
        throw error;
      });
      if (existing) {
        if (existing.tags[MIGRATED_TAG] === markerValue(options.source)) plan.status = 'migrated';
        else if (existing.tags[MIGRATING_TAG] === markerValue(options.source)) {
          plan.status = 'resume';
          plan.targetVersion = existing.version;
        } else {
          plan.status = 'conflict';
          plan.reason = `${key} already exists in the target and was not migrated from this source`;
        }
      }
    } catch (error) {
      plan.status = 'error';
      plan.reason = errorText(error);
    }
  }
  return plans;
}

/** Decrypts a deployment's ciphertexts with the source's provider and encrypts them with the target stack's key. */
async function resealDeployment(
  deployment: UntypedDeployment,
  decrypter: () => Promise<SecretsDecrypter>,
  target: Backend,
  ref: StackRef,
): Promise<UntypedDeployment> {
  const copy = structuredClone(deployment);
  const sealed = secretObjects(copy).filter((s) => typeof s.ciphertext === 'string');
  if (sealed.length > 0) {
    const ciphertexts = [...new Set(sealed.map((s) => s.ciphertext!))];
    const plaintexts = await (await decrypter()).decrypt(ciphertexts);
    const byCiphertext = new Map(ciphertexts.map((c, i) => [c, plaintexts[i]!]));
    for (const secret of sealed) {
      secret.plaintext = byCiphertext.get(secret.ciphertext!)!;
      delete secret.ciphertext;
    }
  }
  await sealSecrets(target, ref, copy, secretsProviderFor(target, ref));
  return copy;
}

/** A history entry's config with its secret values re-encrypted for the target stack. */
async function resealConfig(
  config: SourceHistoryEntry['config'],
  decrypter: () => Promise<SecretsDecrypter>,
  target: Backend,
  ref: StackRef,
): Promise<SourceHistoryEntry['config']> {
  const ciphertexts = new Set<string>();
  for (const value of Object.values(config)) {
    if (!value.secret) continue;
    if (value.object) collectCiphertexts(JSON.parse(value.string)).forEach((c) => ciphertexts.add(c));
    else ciphertexts.add(value.string);
  }
  if (ciphertexts.size === 0) return config;
  const list = [...ciphertexts];
  const plaintexts = await (await decrypter()).decrypt(list);
  const sealed = await target.encrypt(ref, plaintexts);
  const mapping = new Map(list.map((c, i) => [c, sealed[i]!]));
  const result: SourceHistoryEntry['config'] = {};
  for (const [key, value] of Object.entries(config)) {
    if (!value.secret) result[key] = value;
    else if (value.object) {
      result[key] = { ...value, string: JSON.stringify(mapSecureValues(JSON.parse(value.string), (c) => ({ secure: mapping.get(c)! }))) };
    } else result[key] = { ...value, string: mapping.get(value.string)! };
  }
  return result;
}

async function migrateStack(options: MigrationOptions, plan: StackPlan, position: string): Promise<void> {
  const { source: stack } = plan;
  const { target, progress } = options;
  const ref = plan.target!;
  const label = `${position} ${stack.name} → ${ref.org}/${ref.project}/${ref.stack}`;
  const tags = await stack.tags();
  const marker = markerValue(options.source);
  if (plan.status === 'new') {
    await target.createStack(ref, { ...withoutMarkers(tags), [MIGRATING_TAG]: marker });
  } else {
    progress(`${label}: resuming an interrupted migration at version ${plan.targetVersion}`);
  }

  const history = await stack.history();
  const current = await stack.current();
  const last = history.length > 0 ? await history[history.length - 1]!.deployment() : undefined;
  const importNeeded = current !== undefined && (history.length === 0 || !sameJson(current, last));
  let version = plan.targetVersion;
  for (let i = version; i < history.length; i++) {
    const entry = history[i]!;
    const deployment = await entry.deployment();
    const decrypter = () => stack.stateSecrets(deployment ?? current ?? { version: 3, deployment: {} });
    await target.appendHistory(ref, {
      version: i + 1,
      kind: entry.kind,
      result: entry.result,
      startTime: entry.startTime,
      endTime: Math.max(entry.endTime, entry.startTime),
      message: entry.message,
      environment: entry.environment,
      config: await resealConfig(entry.config, decrypter, target, ref),
      ...(entry.resourceChanges ? { resourceChanges: entry.resourceChanges } : {}),
      ...(deployment ? { deployment: await resealDeployment(deployment, decrypter, target, ref) } : {}),
    });
    version = i + 1;
    if (history.length > 5) progress(`${label}: history ${version}/${history.length}`);
  }
  if (importNeeded && version === history.length) {
    await target.importDeployment(ref, await resealDeployment(current, () => stack.stateSecrets(current), target, ref));
  }

  let configNote = '';
  if (plan.configFile) {
    const result = await migrateStackFile(plan.configFile, target, ref, (settings) => stack.configSecrets(settings));
    if (result.outcome === 'rewritten') configNote = `, ${plan.configFile} rewritten (${result.secrets} secrets; original kept as ${result.backup})`;
    else if (result.outcome === 'already-migrated') configNote = `, ${plan.configFile} already uses the target key`;
  }
  await target.setTags(ref, { ...withoutMarkers(tags), [MIGRATED_TAG]: marker });
  progress(
    `${label}: migrated (${plan.resources} resources, ${history.length} history entries, ${plan.stateSecrets} state secrets re-encrypted${configNote})`,
  );
}

function withoutMarkers(tags: Record<string, string>): Record<string, string> {
  const rest = { ...tags };
  delete rest[MIGRATING_TAG];
  delete rest[MIGRATED_TAG];
  return rest;
}

/** Runs the plan: stacks one after another; a failure is recorded and the next stack goes on. */
export async function runMigration(options: MigrationOptions, plans: StackPlan[]): Promise<MigrationResult> {
  const result: MigrationResult = { migrated: [], skipped: [], failed: [] };
  for (const [index, plan] of plans.entries()) {
    const position = `[${index + 1}/${plans.length}]`;
    const name = plan.source.name;
    if (plan.status === 'migrated') {
      options.progress(`${position} ${name}: already migrated to ${plan.target!.org}/${plan.target!.project}/${plan.target!.stack}, skipped`);
      result.skipped.push(name);
      continue;
    }
    if (plan.status === 'conflict' || plan.status === 'error') {
      options.progress(`${position} ${name}: failed: ${plan.reason}`);
      result.failed.push({ name, error: plan.reason! });
      continue;
    }
    try {
      await migrateStack(options, plan, position);
      result.migrated.push(name);
    } catch (error) {
      options.progress(`${position} ${name}: failed: ${errorText(error)}`);
      result.failed.push({ name, error: errorText(error) });
    }
  }
  return result;
}
