import { ConflictError, NotFoundError } from '../errors.js';
import { formatStackRef, type StackRef } from '../names.js';
import type { DeploymentRun, DeploymentSettingsRecord } from '../../ports/deployment-store.js';
import type { StackRecord } from '../../ports/stack-store.js';
import { audited } from '../audit/audit.js';
import { loadStack } from '../kernel/authorization.js';
import type { ServiceDeps } from '../kernel/deps.js';
import type { Principal } from '../kernel/principal.js';
import { deploymentOperation, queueRun, type CreateRunRequest } from './run-queue.js';
import { mergeSettings, publicSettings, sealSettings, validateSettings, withoutReadOnly } from './settings.js';
import { createSourceArchiveVerbs, refuseArchiveInSettings, type SourceUpload } from './source-archives.js';
import { isFinished, logsView, runView, type DeploymentLogsView, type DeploymentRunView } from './views.js';

/** Deployment settings and runs of a stack (docs/deployments.md). */
export interface DeploymentService {
  /** The stack's settings with every secret sealed (`{}` when none are set). */
  getSettings(principal: Principal, ref: StackRef): Promise<Record<string, unknown>>;
  /** Merges a patch into the stack's settings (RFC 7396) and returns the result. */
  patchSettings(principal: Principal, ref: StackRef, patch: Record<string, unknown>): Promise<Record<string, unknown>>;
  deleteSettings(principal: Principal, ref: StackRef): Promise<void>;
  /** Seals one secret value for the stack's settings: `{ ciphertext }`. */
  encryptSecret(principal: Principal, ref: StackRef, plaintext: string): Promise<{ ciphertext: string }>;

  /** Queues a run; `initiator` is the client's `X-Pulumi-Deployment-Initiator`. */
  createRun(principal: Principal, ref: StackRef, request: CreateRunRequest, initiator: string): Promise<{ id: string; consoleUrl: string; version: number }>;
  listRuns(principal: Principal, ref: StackRef, limit?: number): Promise<DeploymentRunView[]>;
  getRun(principal: Principal, ref: StackRef, id: string): Promise<DeploymentRunView>;
  /** A queued run ends at once (`failed`, cancelled); a claimed one is asked to stop, and cancels its update. */
  cancelRun(principal: Principal, ref: StackRef, id: string): Promise<DeploymentRunView>;
  readLogs(principal: Principal, ref: StackRef, id: string, offset: number, count: number): Promise<DeploymentLogsView>;

  /** Declares a program archive to upload as a run's source: its id and where to PUT it (source-archives.ts). */
  startSourceUpload(principal: Principal, ref: StackRef, declared: { size: number; sha256: string }): Promise<SourceUpload>;
  /** An archive's upload through the API (where the storage offers no direct upload). */
  uploadSource(principal: Principal, ref: StackRef, id: string, archive: Uint8Array): Promise<void>;
}

const MAX_LIST = 100;
const RUN_ID = /^[0-9a-f-]{36}$/;

export function createDeploymentService(deps: ServiceDeps): DeploymentService {
  const store = () => deps.storage.deployments;
  const archives = createSourceArchiveVerbs(deps);

  async function findRun(stack: StackRecord, id: string): Promise<DeploymentRun> {
    const run = RUN_ID.test(id) ? await store().getRun(stack.id, id) : undefined;
    if (!run) throw new NotFoundError(`Deployment '${id.slice(0, 64)}' not found: list the stack's deployments with 'stackyard deployment ls'.`);
    return run;
  }

  return {
    async getSettings(principal, ref) {
      const stack = await loadStack(deps, principal, ref, 'read-deployments');
      return publicSettings((await store().getSettings(stack.id))?.settings ?? {});
    },

    async patchSettings(principal, ref, patch) {
      const stack = await loadStack(deps, principal, ref, 'manage-deployments');
      const current = await store().getSettings(stack.id);
      const merged = mergeSettings(current?.settings ?? {}, withoutReadOnly(patch));
      refuseArchiveInSettings(merged);
      validateSettings(merged);
      const settings = await sealSettings(deps.keys, stack, merged);
      const record: DeploymentSettingsRecord = {
        stackId: stack.id,
        settings,
        version: (current?.version ?? 0) + 1,
        modifiedAt: deps.now(),
        modifiedBy: principal.login,
      };
      const target = formatStackRef(stack);
      await audited(deps, principal, { org: stack.org, event: 'deployment.settings-changed', target, description: `changed the deployment settings of ${target}` }, () =>
        store().putSettings(record, current?.version),
      );
      return publicSettings(settings);
    },

    async deleteSettings(principal, ref) {
      const stack = await loadStack(deps, principal, ref, 'manage-deployments');
      const target = formatStackRef(stack);
      await audited(deps, principal, { org: stack.org, event: 'deployment.settings-deleted', target, description: `removed the deployment settings of ${target}` }, () =>
        store().deleteSettings(stack.id),
      );
    },

    async encryptSecret(principal, ref, plaintext) {
      const stack = await loadStack(deps, principal, ref, 'manage-deployments');
      const [sealed] = await deps.keys.encryptForStack(stack, [Buffer.from(plaintext, 'utf8')]);
      return { ciphertext: Buffer.from(sealed!).toString('base64') };
    },

    async createRun(principal, ref, request, initiator) {
      const operation = deploymentOperation(request);
      const stack = await loadStack(deps, principal, ref, 'update');
      const target = formatStackRef(stack);
      const run = await audited(
        deps,
        principal,
        { org: stack.org, event: 'deployment.queued', target, description: `queued a ${operation} deployment of ${target} (${initiator})` },
        () => queueRun(deps, stack, request, principal.login, initiator),
      );
      return { id: run.id, consoleUrl: `/${stack.org}/${stack.project}/${stack.stack}/deployments/${run.version}`, version: run.version };
    },

    async listRuns(principal, ref, limit = MAX_LIST) {
      const stack = await loadStack(deps, principal, ref, 'read-deployments');
      return (await store().listRuns(stack.id, Math.min(Math.max(limit, 1), MAX_LIST))).map(runView);
    },

    async getRun(principal, ref, id) {
      const stack = await loadStack(deps, principal, ref, 'read-deployments');
      return runView(await findRun(stack, id));
    },

    async cancelRun(principal, ref, id) {
      const stack = await loadStack(deps, principal, ref, 'cancel');
      const target = formatStackRef(stack);
      for (;;) {
        const run = await findRun(stack, id);
        if (isFinished(run)) throw new ConflictError(`Deployment ${run.version} of ${target} already ended (${run.status}).`);
        const queued = run.status === 'not-started';
        const next: DeploymentRun = queued
          ? { ...run, status: 'failed', failure: `cancelled by ${principal.login} before it started`, modified: deps.now(), revision: run.revision + 1 }
          : { ...run, cancelRequested: true, modified: deps.now(), revision: run.revision + 1 };
        try {
          const saved = await audited(
            deps,
            principal,
            { org: stack.org, event: 'deployment.cancelled', target, description: `cancelled deployment ${run.version} of ${target} (requested by ${run.requestedBy})` },
            () => store().updateRun(next, run.revision),
          );
          return runView(saved);
        } catch (error) {
          if (!(error instanceof ConflictError)) throw error;
        }
      }
    },

    async readLogs(principal, ref, id, offset, count) {
      const stack = await loadStack(deps, principal, ref, 'read-deployments');
      const run = await findRun(stack, id);
      const lines = await store().readLog(run.id, offset, count);
      return logsView(run, lines, offset, count);
    },

    startSourceUpload: archives.startUpload,
    uploadSource: archives.upload,
  };
}
