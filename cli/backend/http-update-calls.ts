/**
 * The update lifecycle over the Pulumi service API, as the `pulumi` CLI calls it: create, start (with the lease
 * conflict read when the stack is busy), renew, checkpoint, journal entries, events, complete, cancel; and the
 * stack's secret batch calls the engine makes during an update. HttpBackend exposes these as its own.
 */
import type { StackRef } from '../../shared/core/names.js';
import type { UntypedDeployment } from '../../shared/core/checkpoints/types.js';
import type { JournalEntry } from '../../shared/core/journal/types.js';
import type { ApiClient } from '../api-client/api-client.js';
import { ApiError } from '../api-client/api-error.js';
import type { RequiredPolicy } from '../policy/policy-types.js';
import { leaseHeldError } from './lease-conflict.js';
import type { Backend, CreatedUpdate, StartedUpdate, StartOptions, UpdateRequest } from './backend.js';

export type UpdateCalls = Pick<
  Backend,
  | 'cancelUpdate'
  | 'encrypt'
  | 'decrypt'
  | 'createUpdate'
  | 'startUpdate'
  | 'renewLease'
  | 'saveCheckpoint'
  | 'appendJournalEntries'
  | 'recordEvents'
  | 'completeUpdate'
>;

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const unb64 = (text: string) => Buffer.from(text, 'base64').toString('utf8');

export const stackPath = (ref: StackRef): string => `/api/stacks/${ref.org}/${ref.project}/${ref.stack}`;

export class HttpUpdateCalls implements UpdateCalls {
  /** `activeUpdate`: reads the stack's active update, to name the holder when a start finds the stack busy. */
  constructor(
    private readonly client: ApiClient,
    private readonly activeUpdate: (ref: StackRef) => Promise<string | undefined>,
  ) {}

  async cancelUpdate(ref: StackRef, updateId: string): Promise<void> {
    await this.client.request({ method: 'POST', path: `${stackPath(ref)}/update/${updateId}/cancel`, idempotent: true, operation: 'cancel update' });
  }

  async encrypt(ref: StackRef, plaintexts: string[]): Promise<string[]> {
    if (plaintexts.length === 0) return [];
    const answer = await this.client.request<{ ciphertexts: string[] }>({
      method: 'POST',
      path: `${stackPath(ref)}/batch-encrypt`,
      body: { plaintexts: plaintexts.map(b64) },
      gzip: true,
      idempotent: true,
      operation: 'encrypt',
    });
    return answer.ciphertexts;
  }

  async decrypt(ref: StackRef, ciphertexts: string[]): Promise<string[]> {
    if (ciphertexts.length === 0) return [];
    const answer = await this.client.request<{ plaintexts: Record<string, string> }>({
      method: 'POST',
      path: `${stackPath(ref)}/batch-decrypt`,
      body: { ciphertexts },
      gzip: true,
      idempotent: true,
      operation: 'decrypt',
    });
    return ciphertexts.map((c) => {
      const plaintext = answer.plaintexts[c];
      if (plaintext === undefined) throw new ApiError(500, 'the service did not return every decrypted value', undefined, 'decrypt');
      return unb64(plaintext);
    });
  }

  async createUpdate(ref: StackRef, request: UpdateRequest): Promise<CreatedUpdate> {
    const answer = await this.client.request<{ updateID: string; requiredPolicies?: RequiredPolicy[] | null }>({
      method: 'POST',
      // Pulumi's CLI starts an import as an update of the service
      path: `${stackPath(ref)}/${request.kind === 'import' ? 'update' : request.kind}`,
      body: {
        name: request.program.name,
        runtime: request.program.runtime,
        main: request.program.main ?? '',
        description: request.program.description ?? '',
        options: {
          localPolicyPackPaths: null,
          color: 'raw',
          dryRun: request.dryRun,
          parallel: 0,
          showConfig: false,
          showReplacementSteps: false,
          showNames: false,
          summary: false,
          debug: false,
        },
        config: request.config,
        metadata: { message: request.message ?? '', environment: request.environment },
      },
      operation: 'create update',
    });
    return { updateId: answer.updateID, requiredPolicies: answer.requiredPolicies ?? [] };
  }

  async startUpdate(ref: StackRef, updateId: string, tags: Record<string, string>, options: StartOptions = {}): Promise<StartedUpdate> {
    try {
      const answer = await this.client.request<{ version: number; token: string; journalVersion?: number }>({
        method: 'POST',
        path: `${stackPath(ref)}/update/${updateId}`,
        body: {
          tags,
          ...(options.journalVersion === undefined ? {} : { journalVersion: options.journalVersion }),
          ...(options.leaseDurationSeconds === undefined ? {} : { leaseDurationSeconds: options.leaseDurationSeconds }),
          ...(options.stackyardPlan === undefined ? {} : { stackyardPlan: options.stackyardPlan }),
        },
        operation: 'start update',
      });
      return { version: answer.version, token: answer.token, journalVersion: answer.journalVersion === 1 ? 1 : 0 };
    } catch (error) {
      throw await leaseHeldError(ref, error, this.activeUpdate);
    }
  }

  async renewLease(ref: StackRef, updateId: string, token: string, durationSeconds: number): Promise<string> {
    const answer = await this.client.request<{ token: string }>({
      method: 'POST',
      path: `${stackPath(ref)}/update/${updateId}/renew_lease`,
      body: { token: '', duration: durationSeconds },
      updateToken: token,
      idempotent: true,
      operation: 'renew lease',
    });
    return answer.token || token;
  }

  async saveCheckpoint(ref: StackRef, updateId: string, token: string, deployment: UntypedDeployment): Promise<void> {
    await this.client.request({
      method: 'PATCH',
      path: `${stackPath(ref)}/update/${updateId}/checkpoint`,
      body: { isInvalid: false, ...deployment },
      gzip: true,
      updateToken: token,
      idempotent: true,
      operation: 'save checkpoint',
    });
  }

  /**
   * One `PATCH …/journalentries` per call, as the `pulumi` CLI sends them; a batch the service refuses as too large
   * (413) is split in half and each half sent in order. Repeating a batch is harmless (entries are kept by
   * `sequenceID`), so a failed call may be retried.
   */
  async appendJournalEntries(ref: StackRef, updateId: string, token: string, entries: JournalEntry[]): Promise<void> {
    try {
      await this.client.request({
        method: 'PATCH',
        path: `${stackPath(ref)}/update/${updateId}/journalentries`,
        body: { entries },
        gzip: true,
        updateToken: token,
        idempotent: true,
        operation: 'save journal entries',
      });
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 413 && entries.length > 1)) throw error;
      const half = Math.ceil(entries.length / 2);
      await this.appendJournalEntries(ref, updateId, token, entries.slice(0, half));
      await this.appendJournalEntries(ref, updateId, token, entries.slice(half));
    }
  }

  async recordEvents(ref: StackRef, updateId: string, token: string, events: unknown[]): Promise<void> {
    await this.client.request({
      method: 'POST',
      path: `${stackPath(ref)}/update/${updateId}/events/batch`,
      body: { events },
      gzip: true,
      updateToken: token,
      idempotent: true,
      operation: 'record events',
    });
  }

  async completeUpdate(ref: StackRef, updateId: string, token: string, status: 'succeeded' | 'failed' | 'cancelled'): Promise<void> {
    await this.client.request({
      method: 'POST',
      path: `${stackPath(ref)}/update/${updateId}/complete`,
      body: { status },
      updateToken: token,
      idempotent: true,
      operation: 'complete update',
    });
  }
}
