import { promises as fs } from 'node:fs';
import { ConflictError } from '../../core/errors.js';
import type { SourceArchiveStore } from '../../ports/source-archive-store.js';
import { code, safeSegment, type DataDir } from './files.js';

/** Archives at `deploysources/<stackId>/<archiveId>.tgz`, each published once (a hard link that fails if taken). */
export class LocalSourceArchiveStore implements SourceArchiveStore {
  constructor(private readonly dir: DataDir) {}

  async putArchive(stackId: string, archiveId: string, archive: Uint8Array): Promise<void> {
    const temp = await this.dir.writeTemp(archive);
    if (!(await this.dir.publishExclusive(temp, this.file(stackId, archiveId)))) {
      throw new ConflictError(`Source archive '${archiveId}' already exists; archives are never replaced.`);
    }
  }

  async getArchive(stackId: string, archiveId: string): Promise<Uint8Array | undefined> {
    try {
      return await fs.readFile(this.file(stackId, archiveId));
    } catch (error) {
      if (code(error) === 'ENOENT') return undefined;
      throw error;
    }
  }

  async deleteStackArchives(stackId: string): Promise<void> {
    await this.dir.remove(this.dir.path('deploysources', safeSegment(stackId, 'stack id')));
  }

  /** None: the data folder is reached through the API's upload route only. */
  async uploadLocation(): Promise<undefined> {
    return undefined;
  }

  private file(stackId: string, archiveId: string): string {
    return this.dir.path('deploysources', safeSegment(stackId, 'stack id'), `${safeSegment(archiveId, 'archive id')}.tgz`);
  }
}
