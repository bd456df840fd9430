/**
 * Deployment settings and runs of a stack on a service, called as the `pulumi` CLI's client calls them
 * (pkg/backend/httpstate/client: GetStackDeploymentSettings, PatchStackDeploymentSettings, CreateDeployment,
 * ListStackDeployments, GetDeployment, CancelDeployment, GetDeploymentLogs); docs/deployments.md.
 */
import type { StackRef } from '../../shared/core/names.js';
import type { DeploymentLogsView, DeploymentRunView } from '../../shared/core/deployments/views.js';

/** Pulumi's `CreateDeploymentRequest`. */
export interface RunRequest {
  operation: string;
  inheritSettings: boolean;
  sourceContext?: Record<string, unknown>;
  operationContext?: Record<string, unknown>;
}

/** What `stackyard deployment …` asks of a backend. */
export interface DeploymentsBackend {
  getSettings(ref: StackRef): Promise<Record<string, unknown>>;
  /** Merges `patch` into the stored settings (RFC 7396) and returns the result, secrets sealed. */
  patchSettings(ref: StackRef, patch: Record<string, unknown>): Promise<Record<string, unknown>>;
  deleteSettings(ref: StackRef): Promise<void>;
  run(ref: StackRef, request: RunRequest): Promise<{ id: string; consoleUrl: string; version: number }>;
  list(ref: StackRef): Promise<DeploymentRunView[]>;
  get(ref: StackRef, id: string): Promise<DeploymentRunView>;
  cancel(ref: StackRef, id: string): Promise<DeploymentRunView>;
  /** A page of the run's log from `offset`; `nextToken` is where to read on while more may come. */
  logs(ref: StackRef, id: string, page: { offset: number; count?: number }): Promise<DeploymentLogsView>;
  /** Uploads a program archive as a run's source (stackyard's own routes); its id, for `sourceContext.archive`. */
  uploadSource(ref: StackRef, archive: { archive: Buffer; sha256: string }): Promise<{ id: string }>;
}
