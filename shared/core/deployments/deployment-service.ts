import { randomUUID } from 'node:crypto';
import { ConflictError, InvalidInputError, NotFoundError } from '../errors.js';
import { formatStackRef, type StackRef } from '../names.js';
import type { DeploymentOperation, DeploymentRun, DeploymentSettingsRecord } from '../../ports/deployment-store.js';
import type { StackRecord } from '../../ports/stack-store.js';
import { audited } from '../audit/audit.js';
import { loadStack } from '../kernel/authorization.js';
import type { ServiceDeps } from '../kernel/deps.js';
import type { Principal } from '../kernel/principal.js';
import { gitSource, mergeSettings, sealSettings, validateSettings } from './settings.js';
import { isFinished, logsView, runView, type DeploymentLogsView, type DeploymentRunView } from './views.js';

/** Pulumi's operations, in `apitype.ParsePulumiOperation`'s words. */
export const DEPLOYMENT_OPERATIONS: readonly DeploymentOperation[] = ['update', 'preview', 'destroy', 'refresh', 'detect-drift', 'remediate-drift'];

/** Pulumi's `CreateDeploymentRequest` (`inheritSettings` defaults to true, as on Pulumi Cloud's current routes). */
export interface CreateRunRequest {
  operation: string;
  inheritSettings?: boolean;
  executorContext?: Record<string, unknown>;
  sourceContext?: Record<string, unknown>;
  operationContext?: Record<string, unknown>;
}

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
}

const MAX_LIST = 100;
const VERSION_RETRIES = 8;
const RUN_ID = /^[0-9a-f-]{36}$/;

export function createDeploymentService(deps: ServiceDeps): DeploymentService {
  const store = () => deps.storage.deployments;

  async function findRun(stack: StackRecord, id: string): Promise<DeploymentRun> {
    const run = RUN_ID.test(id) ? await store().getRun(stack.id, id) : undefined;
    if (!run) throw new NotFoundError(`Deployment '${id.slice(0, 64)}' not found: list the stack's deployments with 'stackyard deployment ls'.`);
    return run;
  }

  async function queue(stack: StackRecord, principal: Principal, operation: DeploymentOperation, settings: Record<string, unknown>, initiator: string) {
    for (let attempt = 0; ; attempt++) {
      const latest = (await store().listRuns(stack.id, 1))[0];
      const now = deps.now();
      const run: DeploymentRun = {
        id: randomUUID(),
        stackId: stack.id,
        org: stack.org,
        project: stack.project,
        stack: stack.stack,
        version: (latest?.version ?? 0) + 1,
        operation,
        status: 'not-started',
        requestedBy: principal.login,
        initiator,
        settings,
        created: now,
        modified: now,
        revision: 1,
        updates: [],
      };
      try {
        await store().createRun(run);
        return run;
      } catch (error) {
        if (!(error instanceof ConflictError) || attempt >= VERSION_RETRIES) throw error;
      }
    }
  }

  return {
    async getSettings(principal, ref) {
      const stack = await loadStack(deps, principal, ref, 'read-deployments');
      return (await store().getSettings(stack.id))?.settings ?? {};
    },

    async patchSettings(principal, ref, patch) {
      const stack = await loadStack(deps, principal, ref, 'manage-deployments');
      const current = await store().getSettings(stack.id);
      const merged = mergeSettings(current?.settings ?? {}, patch);
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
      return settings;
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
      const operation = DEPLOYMENT_OPERATIONS.find((op) => op === request.operation);
      if (!operation) {
        throw new InvalidInputError(`Unknown operation '${String(request.operation).slice(0, 40)}': expected one of ${DEPLOYMENT_OPERATIONS.join(', ')}.`);
      }
      const stack = await loadStack(deps, principal, ref, 'update');
      const inherited = request.inheritSettings === false ? {} : ((await store().getSettings(stack.id))?.settings ?? {});
      const own: Record<string, unknown> = {};
      for (const key of ['executorContext', 'sourceContext', 'operationContext'] as const) if (request[key] !== undefined) own[key] = request[key];
      const merged = mergeSettings(inherited, own);
      validateSettings(merged);
      if (!gitSource(merged)) {
        throw new InvalidInputError(
          `The stack ${formatStackRef(stack)} has no source to deploy: set sourceContext.git.repoUrl with ` +
            `'stackyard deployment settings configure' (or POST …/deployments/settings), or pass a source with the run.`,
        );
      }
      const settings = await sealSettings(deps.keys, stack, merged);
      const target = formatStackRef(stack);
      const run = await audited(
        deps,
        principal,
        { org: stack.org, event: 'deployment.queued', target, description: `queued a ${operation} deployment of ${target} (${initiator})` },
        () => queue(stack, principal, operation, settings, initiator),
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
  };
}
