/**
 * A stack's drift runs and drift status, as the `pulumi` CLI's client reads them (ListDriftRuns, GetDriftStatus);
 * docs/deployments.md, "Drift". On the local backend they are the drift runs of its own `refresh --preview-only`s.
 */
import type { StackRef } from '../../shared/core/names.js';
import type { DriftRunsPage } from '../../shared/core/drift/drift-service.js';
import type { DriftStatusView } from '../../shared/core/drift/views.js';

/** What `stackyard stack drift …` asks of a backend. */
export interface DriftBackend {
  /** Page `page` (from 1) of `pageSize` drift runs, newest first, with the total. */
  listRuns(ref: StackRef, page: number, pageSize: number): Promise<DriftRunsPage>;
  status(ref: StackRef): Promise<DriftStatusView>;
}
