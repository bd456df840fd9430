/**
 * Pulumi's deployment format (`apitype.DeploymentV3`) and the engine's in-memory resource state. State values keep
 * secrets as `{sig, value}` in memory; on the way to storage each secret becomes `{sig, ciphertext}` through the
 * injected crypter, and back again on load.
 */
import { createHash } from 'node:crypto';
import { findIntegrityViolation } from '../../../shared/core/checkpoints/deployment-integrity.js';
import type { JournalEntry } from '../../../shared/core/journal/types.js';
import type { ResourceV3 } from '../../../shared/core/checkpoints/types.js';
import { deepEqual, SECRET_SIG, SIG_KEY, type PropertyMap, type PropertyValue } from '../resource/properties.js';

/** A resource as recorded in a deployment (`apitype.ResourceV3`), values in engine form. */
export interface ResourceState {
  urn: string;
  custom: boolean;
  delete?: boolean;
  id?: string;
  type: string;
  inputs?: PropertyMap;
  outputs?: PropertyMap;
  parent?: string;
  protect?: boolean;
  /** Replaced on the next update (`state taint`), as Pulumi does; the replacement is not tainted. */
  taint?: boolean;
  external?: boolean;
  dependencies?: string[];
  initErrors?: string[];
  provider?: string;
  propertyDependencies?: Record<string, string[]>;
  pendingReplacement?: boolean;
  additionalSecretOutputs?: string[];
  aliases?: string[];
  customTimeouts?: { create?: number; update?: number; delete?: number };
  importID?: string;
  retainOnDelete?: boolean;
  deletedWith?: string;
  created?: string;
  modified?: string;
  ignoreChanges?: string[];
  replaceOnChanges?: string[];
  sourcePosition?: string;
  /** Hook names by hook type (`BeforeCreate`, …, `OnError`), as the `hooks` resource option bound them. */
  resourceHooks?: Partial<Record<HookType, string[]>>;
}

/** Pulumi's `resource.HookType`: when a resource hook runs (`OnError`: an error hook). */
export type HookType = 'BeforeCreate' | 'AfterCreate' | 'BeforeUpdate' | 'AfterUpdate' | 'BeforeDelete' | 'AfterDelete' | 'OnError';

/** Kinds of pending operation. */
export type PendingOperationType = 'creating' | 'updating' | 'deleting' | 'reading';

/** An operation started but not yet finished (`apitype.OperationV2`). */
export interface PendingOperation {
  resource: ResourceState;
  type: PendingOperationType;
}

/** `apitype.DeploymentV3` as stored (secrets encrypted). */
export interface DeploymentV3 {
  manifest: { time: string; magic: string; version: string; plugins?: { name: string; path: string; type: string; version: string }[] };
  secrets_providers?: { type: string; state?: unknown };
  resources?: unknown[];
  pending_operations?: { resource: unknown; type: PendingOperationType }[];
  metadata: Record<string, unknown>;
}

/** `apitype.UntypedDeployment`. */
export interface UntypedDeployment {
  version: number;
  features?: string[];
  deployment: unknown;
}

/**
 * Encrypts and decrypts secret values in batches (a stack's data key in Stackyard). `secretsProvider` is written
 * to the deployment's `secrets_providers`.
 */
export interface SecretsCrypter {
  encrypt(plaintexts: string[]): Promise<string[]>;
  decrypt(ciphertexts: string[]): Promise<string[]>;
  readonly secretsProvider?: { type: string; state?: unknown };
}

/** A saved checkpoint: the deployment object and the exact text of its UntypedDeployment. */
export interface Checkpoint {
  /** `{"version":3,"deployment":{…}}` as JSON text. */
  readonly text: string;
  /** The parsed deployment (built on first access). */
  readonly deployment: DeploymentV3;
}

/** Receives the deployment after every mutating step (saves may be coalesced) and once at the end. */
export interface SnapshotPersister {
  save(checkpoint: Checkpoint): Promise<void>;
}

/**
 * Receives journal entries (Pulumi's `apitype.JournalEntry`, secrets encrypted) instead of checkpoints: what the
 * service's `PATCH …/update/{id}/journalentries` takes when start answered `journalVersion: 1`. Replaying every
 * entry onto the base (the stack state when the update began) gives the deployment a checkpoint would have held.
 */
export interface JournalPersister {
  /**
   * Appends entries whose `sequenceID`s continue the previous call's, strictly increasing from 1. Resolves once
   * they are durable; a rejection fails the run like a failed checkpoint. Never called concurrently; one call per
   * coalesced save, so splitting large batches (413) is the persister's business.
   */
  append(entries: JournalEntry[]): Promise<void>;
}

/** The engine's version string written to manifests. */
export const ENGINE_VERSION = 'v3.248.0';

/** An in-memory snapshot: ordered resources plus pending operations. */
export interface Snapshot {
  resources: ResourceState[];
  pendingOperations: PendingOperation[];
}

/** Raised when a snapshot breaks ordering or reference rules; the save is refused. */
export class SnapshotIntegrityError extends Error {
  override readonly name = 'SnapshotIntegrityError';
}

/**
 * Checks what Pulumi's `VerifyIntegrity` checks, with the same checker the service runs on every save
 * (shared/core/checkpoints/deployment-integrity.ts). Linear in the number of resources.
 */
export function verifyIntegrity(resources: readonly ResourceState[]): void {
  const violation = findIntegrityViolation(resources);
  if (violation) throw new SnapshotIntegrityError(`resource #${violation.index} ${violation.message}`);
}

/** Walks a value and calls `visit` on each secret object. */
function forEachSecret(v: PropertyValue | undefined, visit: (secret: { [k: string]: PropertyValue }) => void): void {
  if (Array.isArray(v)) for (const x of v) forEachSecret(x, visit);
  else if (typeof v === 'object' && v !== null) {
    if (v[SIG_KEY] === SECRET_SIG) visit(v);
    else for (const k in v) forEachSecret(v[k], visit);
  }
}

function mapSecrets(v: PropertyValue, replace: (secret: { [k: string]: PropertyValue }) => PropertyValue): PropertyValue {
  if (Array.isArray(v)) return v.map((x) => mapSecrets(x, replace));
  if (typeof v === 'object' && v !== null) {
    if (v[SIG_KEY] === SECRET_SIG) return replace(v);
    const out: { [k: string]: PropertyValue } = {};
    for (const k in v) out[k] = mapSecrets(v[k], replace);
    return out;
  }
  return v;
}

/**
 * Serializes resources to stored form with encrypted secrets. Each state object is immutable once recorded, so its
 * JSON is cached: a save re-encrypts and re-serializes only resources that changed since the last save.
 */
export class DeploymentSerializer {
  private readonly cache = new WeakMap<ResourceState, string>();

  constructor(private readonly crypter: SecretsCrypter) {}

  /** What is written to `secrets_providers`. */
  get secretsProvider(): { type: string; state?: unknown } | undefined {
    return this.crypter.secretsProvider;
  }

  /** The stored form of each state (secrets encrypted), for journal entries. */
  async toStored(states: readonly ResourceState[]): Promise<ResourceV3[]> {
    await this.prepare([...new Set(states)].filter((s) => !this.cache.has(s)));
    return states.map((s) => JSON.parse(this.cache.get(s)!) as ResourceV3);
  }

  /** Builds the checkpoint for a snapshot, verifying integrity first. */
  async serialize(snapshot: Snapshot, now: () => number): Promise<Checkpoint> {
    verifyIntegrity(snapshot.resources);
    const states = [...snapshot.resources, ...snapshot.pendingOperations.map((o) => o.resource)];
    await this.prepare(states.filter((s) => !this.cache.has(s)));
    const resources = snapshot.resources.map((r) => this.cache.get(r)!);
    const pending = snapshot.pendingOperations.map((o) => `{"resource":${this.cache.get(o.resource)},"type":${JSON.stringify(o.type)}}`);
    const manifest = JSON.stringify({
      time: new Date(now()).toISOString(),
      magic: createHash('sha256').update(ENGINE_VERSION).digest('hex'),
      version: ENGINE_VERSION,
    });
    const sp = this.crypter.secretsProvider ? `,"secrets_providers":${JSON.stringify(this.crypter.secretsProvider)}` : '';
    const res = resources.length ? `,"resources":[${resources.join(',')}]` : '';
    const ops = pending.length ? `,"pending_operations":[${pending.join(',')}]` : '';
    // as Pulumi's `stack.ApplyFeatures`: a state that binds hooks needs the `hooks` feature, so schema version 4
    const hooks = states.some((s) => s.resourceHooks && Object.keys(s.resourceHooks).length > 0);
    const version = hooks ? `4,"features":["hooks"]` : '3';
    const text = `{"version":${version},"deployment":{"manifest":${manifest}${sp},"metadata":{}${res}${ops}}}`;
    let parsed: DeploymentV3 | undefined;
    return {
      text,
      get deployment(): DeploymentV3 {
        parsed ??= (JSON.parse(text) as { deployment: DeploymentV3 }).deployment;
        return parsed;
      },
    };
  }

  private async prepare(states: ResourceState[]): Promise<void> {
    if (states.length === 0) return;
    const plaintexts: string[] = [];
    for (const s of states) {
      const collect = (secret: { [k: string]: PropertyValue }) => void plaintexts.push(JSON.stringify(secret.value ?? null));
      for (const v of Object.values(s.inputs ?? {})) forEachSecret(v, collect);
      for (const v of Object.values(s.outputs ?? {})) forEachSecret(v, collect);
    }
    const ciphertexts = plaintexts.length ? await this.crypter.encrypt(plaintexts) : [];
    let next = 0;
    const encrypt = (): PropertyValue => ({ [SIG_KEY]: SECRET_SIG, ciphertext: ciphertexts[next++] });
    for (const s of states) {
      const stored: ResourceState = { ...s };
      if (s.inputs) stored.inputs = mapSecrets(s.inputs, encrypt) as PropertyMap;
      if (s.outputs) stored.outputs = mapSecrets(s.outputs, encrypt) as PropertyMap;
      this.cache.set(s, JSON.stringify(orderedResource(stored)));
    }
  }
}

const RESOURCE_KEYS: (keyof ResourceState)[] = [
  'urn', 'custom', 'delete', 'id', 'type', 'inputs', 'outputs', 'parent', 'protect', 'taint', 'external', 'dependencies',
  'initErrors', 'provider', 'propertyDependencies', 'pendingReplacement', 'additionalSecretOutputs', 'aliases',
  'customTimeouts', 'importID', 'retainOnDelete', 'deletedWith', 'created', 'modified', 'sourcePosition',
  'ignoreChanges', 'replaceOnChanges', 'resourceHooks',
];

/** Emits keys in Pulumi's field order, dropping empty optional ones (Go `omitempty`). */
export function orderedResource(r: ResourceState): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of RESOURCE_KEYS) {
    const v = r[k];
    const always = k === 'urn' || k === 'custom' || k === 'type';
    if (!always && (v === undefined || v === false || v === '' || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0 && k !== 'inputs' && k !== 'outputs'))) continue;
    out[k] = v;
  }
  return out;
}

/** True when two states would be stored alike (ignoring property key order); secrets compare by value. */
export function sameStoredState(a: ResourceState, b: ResourceState): boolean {
  return deepEqual(orderedResource(a) as PropertyValue, orderedResource(b) as PropertyValue);
}

/** Parses an exported UntypedDeployment (version 3 or 4) and decrypts its secrets. */
export async function loadDeployment(untyped: UntypedDeployment | undefined, crypter: SecretsCrypter): Promise<Snapshot> {
  if (!untyped || untyped.deployment === undefined || untyped.deployment === null) return { resources: [], pendingOperations: [] };
  if (untyped.version !== 3 && untyped.version !== 4) {
    throw new Error(`unsupported deployment version ${untyped.version}; expected 3`);
  }
  const d = untyped.deployment as DeploymentV3;
  const resources = (d.resources ?? []) as ResourceState[];
  const ops = (d.pending_operations ?? []) as PendingOperation[];
  const all = [...resources, ...ops.map((o) => o.resource)];
  const ciphertexts: string[] = [];
  for (const s of all) {
    const collect = (secret: { [k: string]: PropertyValue }) => {
      if (typeof secret.ciphertext === 'string') ciphertexts.push(secret.ciphertext);
    };
    for (const v of Object.values(s.inputs ?? {})) forEachSecret(v, collect);
    for (const v of Object.values(s.outputs ?? {})) forEachSecret(v, collect);
  }
  const plaintexts = ciphertexts.length ? await crypter.decrypt(ciphertexts) : [];
  let next = 0;
  const decrypt = (secret: { [k: string]: PropertyValue }): PropertyValue => {
    if (typeof secret.ciphertext === 'string') return { [SIG_KEY]: SECRET_SIG, value: JSON.parse(plaintexts[next++]) as PropertyValue };
    if (typeof secret.plaintext === 'string') return { [SIG_KEY]: SECRET_SIG, value: JSON.parse(secret.plaintext) as PropertyValue };
    return secret;
  };
  const decode = (s: ResourceState): ResourceState => ({
    ...s,
    ...(s.inputs ? { inputs: mapSecrets(s.inputs, decrypt) as PropertyMap } : {}),
    ...(s.outputs ? { outputs: mapSecrets(s.outputs, decrypt) as PropertyMap } : {}),
  });
  return {
    resources: resources.map(decode),
    pendingOperations: ops.map((o) => ({ type: o.type, resource: decode(o.resource) })),
  };
}
