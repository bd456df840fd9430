import { promises as fs } from 'node:fs';
import { ConflictError } from '../../core/errors.js';
import type {
  PolicyGroupRecord,
  PolicyPackageStore,
  PolicyPackVersionRecord,
  PolicyStore,
  StackPolicyResultsRecord,
} from '../../ports/policy-store.js';
import { code, safeSegment, type DataDir } from './files.js';

const LOCK = 'policies';

function pad(n: number): string {
  return String(n).padStart(10, '0');
}

/**
 * `policies/<org>/packs/<name>/<versionTag>.json` with a claim file `numbers/<version>` per version number, the
 * tarball beside it as `<versionTag>.tgz`, groups at `policies/<org>/groups/<name>.json`, and each stack's latest
 * policy results at `policies/<org>/results/<stackId>.json`. Every read-modify-write holds the `policies` lock.
 */
export class LocalPolicyStore implements PolicyStore, PolicyPackageStore {
  constructor(private readonly dir: DataDir) {}

  async createVersion(record: PolicyPackVersionRecord): Promise<void> {
    await this.dir.withLock(LOCK, async () => {
      if (await this.getVersion(record.org, record.name, record.versionTag)) throw versionTaken(record);
      await this.dir.createJson(this.numberPath(record), { versionTag: record.versionTag }, `Version ${record.version} of policy pack '${record.name}'`);
      await this.dir.writeJson(this.versionPath(record.org, record.name, record.versionTag), record);
    });
  }

  async getVersion(org: string, name: string, versionTag: string): Promise<PolicyPackVersionRecord | undefined> {
    return this.dir.readJson<PolicyPackVersionRecord>(this.versionPath(org, name, versionTag));
  }

  async listVersions(org: string): Promise<PolicyPackVersionRecord[]> {
    const packs = this.dir.path('policies', safeSegment(org, 'organization'), 'packs');
    const records: PolicyPackVersionRecord[] = [];
    for (const pack of await this.dir.list(packs)) {
      for (const file of await this.dir.list(this.dir.path('policies', org, 'packs', pack))) {
        if (!file.endsWith('.json')) continue;
        const record = await this.dir.readJson<PolicyPackVersionRecord>(this.dir.path('policies', org, 'packs', pack, file));
        if (record) records.push(record);
      }
    }
    return records.sort((a, b) => (a.name === b.name ? a.version - b.version : a.name < b.name ? -1 : 1));
  }

  async updateVersion(record: PolicyPackVersionRecord, expectedRevision: number): Promise<void> {
    await this.dir.withLock(LOCK, async () => {
      const current = await this.getVersion(record.org, record.name, record.versionTag);
      if (current?.revision !== expectedRevision || current.version !== record.version) {
        throw new ConflictError(`Version ${record.versionTag} of policy pack '${record.name}' changed since it was read: read it again and retry.`);
      }
      await this.dir.writeJson(this.versionPath(record.org, record.name, record.versionTag), record);
    });
  }

  async deleteVersion(org: string, name: string, versionTag: string): Promise<void> {
    await this.dir.withLock(LOCK, async () => {
      const current = await this.getVersion(org, name, versionTag);
      if (!current) return;
      await this.dir.remove(this.versionPath(org, name, versionTag));
      await this.dir.remove(this.numberPath(current));
    });
  }

  async putPackage(org: string, name: string, versionTag: string, tarball: Uint8Array): Promise<void> {
    await this.dir.writeAtomic(this.packagePath(org, name, versionTag), tarball);
  }

  async getPackage(org: string, name: string, versionTag: string): Promise<Uint8Array | undefined> {
    try {
      return await fs.readFile(this.packagePath(org, name, versionTag));
    } catch (error) {
      if (code(error) === 'ENOENT') return undefined;
      throw error;
    }
  }

  async deletePackage(org: string, name: string, versionTag: string): Promise<void> {
    await this.dir.remove(this.packagePath(org, name, versionTag));
  }

  /** None: the data folder is reached through the API's upload route only. */
  async uploadLocation(): Promise<undefined> {
    return undefined;
  }

  async getGroup(org: string, name: string): Promise<PolicyGroupRecord | undefined> {
    return this.dir.readJson<PolicyGroupRecord>(this.groupPath(org, name));
  }

  async listGroups(org: string): Promise<PolicyGroupRecord[]> {
    const folder = this.dir.path('policies', safeSegment(org, 'organization'), 'groups');
    const groups: PolicyGroupRecord[] = [];
    for (const file of await this.dir.list(folder)) {
      const group = await this.dir.readJson<PolicyGroupRecord>(this.dir.path('policies', org, 'groups', file));
      if (group) groups.push(group);
    }
    return groups;
  }

  async putGroup(record: PolicyGroupRecord, expectedRevision: number | undefined): Promise<void> {
    await this.dir.withLock(LOCK, async () => {
      const current = await this.getGroup(record.org, record.name);
      if (current?.revision !== expectedRevision) {
        throw new ConflictError(`Policy group '${record.name}' changed since it was read: read it again and retry.`);
      }
      await this.dir.writeJson(this.groupPath(record.org, record.name), record);
    });
  }

  async deleteGroup(org: string, name: string): Promise<void> {
    await this.dir.withLock(LOCK, () => this.dir.remove(this.groupPath(org, name)));
  }

  async recordStackResults(record: StackPolicyResultsRecord): Promise<void> {
    await this.dir.withLock(LOCK, async () => {
      const path = this.resultsPath(record.org, record.stackId);
      const current = await this.dir.readJson<StackPolicyResultsRecord>(path);
      // An equal or later version is recorded already: that one stays (a retried or overtaken completion).
      if (current && current.version >= record.version) return;
      await this.dir.writeJson(path, record);
    });
  }

  async listStackResults(org: string): Promise<StackPolicyResultsRecord[]> {
    const folder = this.dir.path('policies', safeSegment(org, 'organization'), 'results');
    const records: StackPolicyResultsRecord[] = [];
    for (const file of await this.dir.list(folder)) {
      const record = await this.dir.readJson<StackPolicyResultsRecord>(this.dir.path('policies', org, 'results', file));
      if (record) records.push(record);
    }
    return records;
  }

  private resultsPath(org: string, stackId: string): string {
    return this.dir.path('policies', safeSegment(org, 'organization'), 'results', `${safeSegment(stackId, 'stack id')}.json`);
  }

  private packFolder(org: string, name: string): string[] {
    return ['policies', safeSegment(org, 'organization'), 'packs', safeSegment(name, 'policy pack name')];
  }

  private versionPath(org: string, name: string, versionTag: string): string {
    return this.dir.path(...this.packFolder(org, name), `${safeSegment(versionTag, 'version tag')}.json`);
  }

  private packagePath(org: string, name: string, versionTag: string): string {
    return this.dir.path(...this.packFolder(org, name), `${safeSegment(versionTag, 'version tag')}.tgz`);
  }

  private numberPath(record: Pick<PolicyPackVersionRecord, 'org' | 'name' | 'version'>): string {
    return this.dir.path(...this.packFolder(record.org, record.name), 'numbers', pad(record.version));
  }

  private groupPath(org: string, name: string): string {
    return this.dir.path('policies', safeSegment(org, 'organization'), 'groups', `${safeSegment(name, 'policy group name')}.json`);
  }
}

function versionTaken(record: PolicyPackVersionRecord): ConflictError {
  return new ConflictError(`Version ${record.versionTag} of policy pack '${record.name}' already exists: versions are immutable, publish a new version.`);
}
