/**
 * A Pulumi DIY backend as a migration source, read the way pulumi/pulumi `pkg/backend/diy` lays it out:
 * - `.pulumi/meta.yaml` `version: 1` → project-scoped stacks `.pulumi/stacks/<project>/<stack>.json`; no meta file
 *   (or version 0) → the legacy layout `.pulumi/stacks/<stack>.json`, whose project comes from the state's URNs or
 *   the `pulumi:project` tag;
 * - each file may be plain, `.gz` or `.zst`; when several exist the most recently modified one is current;
 * - the file is a `VersionedCheckpoint` `{version, checkpoint: {stack, config, latest: <deployment>}}`;
 * - tags in `<stack path>.pulumi-tags` (`{version: 1, tags}`);
 * - history under `.pulumi/history/[<project>/]<stack>/<stack>-<unix nanos>.history.json[.gz]`, each with the
 *   `.checkpoint.json[.gz]` copy of the state it produced.
 */
import { gunzipSync } from 'node:zlib';
import * as zlib from 'node:zlib';
import { parse as parseYaml } from 'yaml';
import type { UntypedDeployment } from '../backend/backend.js';
import { UserError } from '../output/errors.js';
import { decrypterForProvider, decrypterForStackFile, type SecretsDecrypter, type SecretsProviderSpec, type StackFileSecrets } from '../secrets/source-secrets.js';
import type { BucketObject, DiyBucket } from './diy-bucket.js';
import type { MigrationSource, SourceHistoryEntry, SourceStack } from './types.js';

const STACKS = '.pulumi/stacks/';
const HISTORY = '.pulumi/history/';
const STATE_FILE = /^(.*)\.json(\.gz|\.zst)?$/;
const ROOT_URN = /^urn:pulumi:([^:]+)::([^:]+)::pulumi:pulumi:Stack::/;

/** Plain, gzip or zstd bytes (detected by content, as Pulumi's `encoding.DetectCompression` does) as text. */
function inflate(bytes: Buffer, key: string): string {
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) return gunzipSync(bytes).toString('utf8');
  if (bytes.readUInt32LE(0) === 0xfd2fb528) {
    const zstd = (zlib as unknown as { zstdDecompressSync?: (b: Buffer) => Buffer }).zstdDecompressSync;
    if (!zstd) throw new UserError(`${key} is zstd-compressed, which needs Node.js 22.15 or later`, 'Run stackyard on a newer Node.js, or decompress the file first.');
    return zstd(bytes).toString('utf8');
  }
  return bytes.toString('utf8');
}

function parseJson(text: string, key: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UserError(`${key} is not valid JSON: ${(error as Error).message}`);
  }
}

/** A `VersionedCheckpoint` file as an `UntypedDeployment`; `undefined` when it holds no deployment yet. */
function checkpointDeployment(value: unknown, key: string): UntypedDeployment | undefined {
  const file = value as { version?: unknown; features?: unknown; checkpoint?: { latest?: unknown } } | null;
  if (!file || typeof file.version !== 'number' || typeof file.checkpoint !== 'object' || file.checkpoint === null) {
    throw new UserError(`${key} is not a Pulumi checkpoint ({"version", "checkpoint"})`);
  }
  const latest = file.checkpoint.latest;
  if (latest === null || latest === undefined) return undefined;
  const features = Array.isArray(file.features) && file.features.length > 0 ? { features: file.features as string[] } : {};
  return { version: file.version, ...features, deployment: latest as Record<string, unknown> };
}

/** Pulumi's `config.Map` JSON (`"v"`, `{"secure": c}`, objects) in the service's `{string, secret, object}` form. */
function serviceConfig(map: unknown): SourceHistoryEntry['config'] {
  const config: SourceHistoryEntry['config'] = {};
  if (map === null || typeof map !== 'object') return config;
  for (const [key, value] of Object.entries(map as Record<string, unknown>)) {
    if (typeof value === 'string') config[key] = { string: value, secret: false, object: false };
    else if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 1 && typeof (value as { secure?: unknown }).secure === 'string') {
      config[key] = { string: (value as { secure: string }).secure, secret: true, object: false };
    } else {
      const text = JSON.stringify(value);
      config[key] = { string: text, secret: text.includes('"secure":'), object: true };
    }
  }
  return config;
}

/** The current variant of a stack file among `x.json`, `x.json.gz`, `x.json.zst`: the newest. */
function newest(objects: BucketObject[]): BucketObject {
  return objects.reduce((best, next) => (next.modified >= best.modified ? next : best));
}

interface StackFiles {
  project?: string;
  stack: string;
  /** Path without `.json…`, e.g. `.pulumi/stacks/web/dev`. */
  base: string;
  file: BucketObject;
}

export class DiySource implements MigrationSource {
  readonly kind = 'diy';
  private readonly decrypters = new Map<string, Promise<SecretsDecrypter>>();

  constructor(
    private readonly bucket: DiyBucket,
    private readonly env: NodeJS.ProcessEnv,
    /** The project of the folder migrate runs in: the project of legacy stacks nothing else names. */
    private readonly fallbackProject?: string,
  ) {}

  get id(): string {
    return this.bucket.url;
  }

  /** Whether the storage holds a `.pulumi` folder at all. */
  async exists(): Promise<boolean> {
    return (await this.bucket.list('.pulumi/')).length > 0;
  }

  async layoutVersion(): Promise<number> {
    const meta = await this.bucket.read('.pulumi/meta.yaml');
    if (!meta) return 0;
    const version = (parseYaml(meta.toString('utf8')) as { version?: unknown } | null)?.version;
    if (typeof version !== 'number') throw new UserError(`${this.id}: .pulumi/meta.yaml has no version; the store is corrupt`);
    if (version > 1) {
      throw new UserError(`${this.id} uses DIY layout version ${version}, which stackyard does not know (it reads 0 and 1)`, 'Upgrade stackyard.');
    }
    return version;
  }

  async stacks(): Promise<SourceStack[]> {
    const projectScoped = (await this.layoutVersion()) === 1;
    const groups = new Map<string, BucketObject[]>();
    for (const object of await this.bucket.list(STACKS)) {
      const rest = object.key.slice(STACKS.length);
      const match = STATE_FILE.exec(rest);
      if (!match) continue;
      const parts = match[1]!.split('/');
      if (parts.length !== (projectScoped ? 2 : 1)) continue;
      const base = `${STACKS}${match[1]}`;
      groups.set(base, [...(groups.get(base) ?? []), object]);
    }
    const found: StackFiles[] = [...groups.entries()].map(([base, objects]) => {
      const parts = base.slice(STACKS.length).split('/');
      return projectScoped ? { project: parts[0], stack: parts[1]!, base, file: newest(objects) } : { stack: parts[0]!, base, file: newest(objects) };
    });
    const stacks: SourceStack[] = [];
    for (const files of found) stacks.push(await this.stack(files));
    return stacks;
  }

  private async readJson(key: string): Promise<unknown> {
    const bytes = await this.bucket.read(key);
    if (!bytes) throw new UserError(`${this.id}: ${key} disappeared while it was being read`);
    return parseJson(inflate(bytes, key), key);
  }

  private async stack(files: StackFiles): Promise<SourceStack> {
    const current = checkpointDeployment(await this.readJson(files.file.key), files.file.key);
    const tagsFile = await this.bucket.read(`${files.base}.pulumi-tags`);
    const tags = tagsFile ? (((parseJson(tagsFile.toString('utf8'), `${files.base}.pulumi-tags`) as { tags?: Record<string, string> }).tags ?? {})) : {};
    let project = files.project;
    if (!project) {
      const root = (current?.deployment.resources as { urn?: unknown }[] | undefined)?.find((r) => typeof r?.urn === 'string' && ROOT_URN.test(r.urn));
      project = root ? ROOT_URN.exec(root.urn as string)![2] : (tags['pulumi:project'] ?? this.fallbackProject);
    }
    const historyDir = `${HISTORY}${files.project ? `${files.project}/` : ''}${files.stack}/`;
    const source = this;
    return {
      name: files.project ? `${files.project}/${files.stack}` : files.stack,
      ...(project ? { project } : {}),
      stack: files.stack,
      tags: async () => tags,
      busy: () => source.lockHolder(files),
      current: async () => current,
      history: () => source.history(historyDir, files.stack),
      stateSecrets: (deployment) => source.stateSecrets(deployment, current),
      async configSecrets(file) {
        const named = await decrypterForStackFile(file, source.env);
        if (named) return named;
        if (current) return source.stateSecrets(current, current);
        throw new UserError(`Pulumi.${files.stack}.yaml names no secrets provider (no encryptionsalt or secretsprovider)`);
      },
    };
  }

  /** A lock file of the stack (`.pulumi/locks/organization/<project>/<stack>/<id>.json`, legacy `<stack>/…`) means an update runs. */
  private async lockHolder(files: StackFiles): Promise<string | undefined> {
    const dir = files.project ? `.pulumi/locks/organization/${files.project}/${files.stack}/` : `.pulumi/locks/${files.stack}/`;
    const [lock] = (await this.bucket.list(dir)).filter((o) => o.key.endsWith('.json'));
    if (!lock) return undefined;
    const bytes = await this.bucket.read(lock.key);
    const holder = bytes ? (JSON.parse(bytes.toString('utf8')) as { username?: string; hostname?: string; timestamp?: string }) : {};
    return (
      `an update holds the source stack (lock ${lock.key}${holder.username ? ` by ${holder.username}@${holder.hostname ?? '?'}` : ''}` +
      `${holder.timestamp ? ` since ${holder.timestamp}` : ''}): wait for it to finish, or remove a stale lock with \`pulumi cancel\``
    );
  }

  private async history(dir: string, stack: string): Promise<SourceHistoryEntry[]> {
    const objects = await this.bucket.list(dir);
    const keys = new Set(objects.map((o) => o.key));
    const entries: SourceHistoryEntry[] = [];
    for (const object of objects) {
      const match = /^(.*)\.history\.json(\.gz|\.zst)?$/.exec(object.key);
      if (!match || !match[1]!.slice(dir.length).startsWith(`${stack}-`)) continue;
      const info = (await this.readJson(object.key)) as Record<string, unknown>;
      if (info.result !== 'succeeded' && info.result !== 'failed') continue;
      const checkpointKey = ['', '.gz', '.zst'].map((ext) => `${match[1]}.checkpoint.json${ext}`).find((key) => keys.has(key));
      entries.push({
        kind: String(info.kind),
        result: info.result,
        startTime: Number(info.startTime),
        endTime: Number(info.endTime),
        message: typeof info.message === 'string' ? info.message : '',
        environment: (info.environment as Record<string, string> | null) ?? {},
        config: serviceConfig(info.config),
        ...(info.resourceChanges ? { resourceChanges: info.resourceChanges as Record<string, number> } : {}),
        deployment: async () => (checkpointKey ? checkpointDeployment(await this.readJson(checkpointKey), checkpointKey) : undefined),
      });
    }
    // Names carry the nanosecond time of the update, so the listing is already in order (oldest first).
    return entries;
  }

  /** The provider a deployment names (cached per provider state), else the one the current state names. */
  private stateSecrets(deployment: UntypedDeployment, current: UntypedDeployment | undefined): Promise<SecretsDecrypter> {
    const named = (deployment.deployment as { secrets_providers?: SecretsProviderSpec }).secrets_providers
      ?? (current?.deployment as { secrets_providers?: SecretsProviderSpec } | undefined)?.secrets_providers;
    if (!named || typeof named.type !== 'string') {
      return Promise.reject(new UserError('the state holds secrets but names no secrets provider (secrets_providers)'));
    }
    const cacheKey = JSON.stringify(named);
    let decrypter = this.decrypters.get(cacheKey);
    if (!decrypter) {
      decrypter = decrypterForProvider(named, { env: this.env });
      this.decrypters.set(cacheKey, decrypter);
    }
    return decrypter;
  }

  async close(): Promise<void> {
    this.bucket.close();
  }
}

export type { StackFileSecrets };
