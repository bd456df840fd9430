/**
 * What the HTTP API needs to speak the incremental save protocols, in one place: the capability to advertise, the
 * journal version to answer at start, and materialising an update's result into a stack checkpoint.
 */
import type { CheckpointStore } from '../../ports/checkpoint-store.js';
import { ConflictError } from '../errors.js';
import { DEFAULT_CHECKPOINT_CUTOFF_BYTES } from '../checkpoints/checkpoint-delta.js';
import { currentUpdateDeployment } from './update-checkpoints.js';
import type { UpdateDeployment } from './update-checkpoints.js';

/** The `GET /api/capabilities` entry enabling verbatim/delta checkpoints (the CLI requires version 2). */
export function deltaCheckpointCapability(cutoffBytes = DEFAULT_CHECKPOINT_CUTOFF_BYTES): {
  capability: 'delta-checkpoint-uploads-v2';
  version: 2;
  configuration: { checkpointCutoffSizeBytes: number };
} {
  return { capability: 'delta-checkpoint-uploads-v2', version: 2, configuration: { checkpointCutoffSizeBytes: cutoffBytes } };
}

/** The journal version start answers: 1 when the client asked for it (any version we can replay), else 0. */
export function negotiateJournalVersion(requested: unknown): 0 | 1 {
  return typeof requested === 'number' && requested >= 1 ? 1 : 0;
}

/**
 * Writes the update's replayed (or last verbatim) deployment as the stack checkpoint `checkpointName`, so later
 * exports and updates read it directly. Returns what was written, or `undefined` when the update saved nothing
 * through journaling or verbatim/delta (it used plain checkpoints, or changed nothing). Safe to repeat.
 */
export async function materializeUpdate(
  store: CheckpointStore,
  stackId: string,
  updateId: string,
  checkpointName: string,
  now: () => number,
): Promise<UpdateDeployment | undefined> {
  const current = await currentUpdateDeployment(store, stackId, updateId, now);
  if (!current) return undefined;
  try {
    await store.put({ stackId, name: checkpointName }, current.text);
  } catch (error) {
    // A retried `complete` finds the checkpoint already written; the first copy stands.
    if (!(error instanceof ConflictError)) throw error;
  }
  return current;
}
