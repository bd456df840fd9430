import { ConflictError, NotFoundError } from '../../core/errors.js';
import type { DriftRemediation, DriftRunRecord, DriftStore } from '../../ports/drift-store.js';
import { safeSegment, type DataDir } from './files.js';

/** Drift runs at `drift/<stackId>/<created, 15 digits>-<id>.json`: the names sort oldest first; each is written once. */
export class LocalDriftStore implements DriftStore {
  constructor(private readonly dir: DataDir) {}

  private file(run: Pick<DriftRunRecord, 'stackId' | 'created' | 'id'>): string {
    const name = `${String(run.created).padStart(15, '0')}-${safeSegment(run.id, 'drift run id')}.json`;
    return this.dir.path('drift', safeSegment(run.stackId, 'stack id'), name);
  }

  async recordRun(run: DriftRunRecord): Promise<void> {
    try {
      await this.dir.createJson(this.file(run), run, 'The drift run');
    } catch (error) {
      // Recording the same preview again keeps the first record.
      if (!(error instanceof ConflictError)) throw error;
    }
  }

  async recordRemediation(run: Pick<DriftRunRecord, 'stackId' | 'created' | 'id'>, remediation: DriftRemediation): Promise<void> {
    const file = this.file(run);
    await this.dir.withLock('drift', async () => {
      const stored = await this.dir.readJson<DriftRunRecord>(file);
      if (!stored) throw new NotFoundError(`Drift run '${run.id}' not found.`);
      await this.dir.writeJson(file, { ...stored, remediateUpdate: remediation });
    });
  }

  async listRuns(stackId: string, page: { limit: number; skip: number }): Promise<{ runs: DriftRunRecord[]; total: number }> {
    const folder = this.dir.path('drift', safeSegment(stackId, 'stack id'));
    const names = (await this.dir.list(folder)).filter((name) => name.endsWith('.json')).reverse();
    const runs: DriftRunRecord[] = [];
    for (const name of names.slice(page.skip, page.skip + page.limit)) {
      const run = await this.dir.readJson<DriftRunRecord>(this.dir.path('drift', safeSegment(stackId, 'stack id'), name));
      if (run) runs.push(run);
    }
    return { runs, total: names.length };
  }
}
