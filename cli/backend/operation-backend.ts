/**
 * The engine's view of a stack (`OperationBackend`) on any `Backend`: each run is an update that is created,
 * started (a lease for real runs, a token for dry runs), fed checkpoints and engine events (whose summary gives
 * history its resource changes) and completed, the same lifecycle the Pulumi CLI drives against the service. The stack's key encrypts the state's secrets, and other
 * stacks are readable for StackReference.
 */
import { isDomainError } from '../../shared/core/errors.js';
import { parseStackRef, type StackRef } from '../../shared/core/names.js';
import { ApiError } from '../api-client/api-error.js';
import type { StackReader } from '../engine/builtin-provider.js';
import { loadDeployment, type SecretsCrypter, type UntypedDeployment as EngineDeployment } from '../engine/deployment.js';
import { waitForLease } from '../engine/lease-wait.js';
import type { OperationBackend, OperationSession } from '../engine/operation.js';
import { isNotFound, secretsProviderFor, type Backend, type UntypedDeployment, type UpdateRequest } from './backend.js';

/** What the service grants per lease; renewed well before it runs out. */
const LEASE_SECONDS = 300;
const RENEW_EVERY_MS = 60_000;

export interface OperationTarget {
  backend: Backend;
  ref: StackRef;
  program: UpdateRequest['program'];
  /** Update-record config (`{string, secret, object}`, secrets encrypted). */
  config: Record<string, unknown>;
  /** The stack's tags merged with the project's, sent when an update starts. */
  tags: Record<string, string>;
  message?: string;
  environment: Record<string, string>;
}

/** The stack's secrets, encrypted and decrypted by the backend with the stack's own key. */
export function stackCrypter(backend: Backend, ref: StackRef): SecretsCrypter {
  return {
    encrypt: (plaintexts) => backend.encrypt(ref, plaintexts),
    decrypt: (ciphertexts) => backend.decrypt(ref, ciphertexts),
    secretsProvider: secretsProviderFor(backend, ref),
  };
}

/** Reads other stacks of the same backend (`org/project/stack`, or shorter within this organization and project). */
export function stackReader(backend: Backend, from: StackRef): StackReader {
  return async (name) => {
    const ref = parseStackRef(name, { org: from.org, project: from.project });
    try {
      const deployment = await backend.exportDeployment(ref);
      return await loadDeployment(deployment as EngineDeployment, stackCrypter(backend, ref));
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  };
}

/** The service takes at most this many engine events per batch. */
const EVENT_BATCH = 50;

function isLeaseLost(error: unknown): boolean {
  return (isDomainError(error) && error.status === 403) || (error instanceof ApiError && error.status === 403);
}

export function createOperationBackend(target: OperationTarget): OperationBackend {
  const { backend, ref } = target;
  return {
    crypter: stackCrypter(backend, ref),
    readStack: stackReader(backend, ref),
    async begin(kind, dryRun, options): Promise<OperationSession> {
      const updateId = await backend.createUpdate(ref, {
        kind,
        dryRun,
        message: target.message,
        environment: target.environment,
        config: target.config,
        program: target.program,
      });
      const start = () => backend.startUpdate(ref, updateId, target.tags);
      const started = options?.wait && !dryRun ? await waitForLease(start, options.wait) : await start();
      let token = started.token;
      const lost = new AbortController();
      const loseLease = (error: unknown) => {
        if (isLeaseLost(error) && !lost.signal.aborted) lost.abort(error);
      };
      const renewal = dryRun
        ? undefined
        : setInterval(() => {
            backend.renewLease(ref, updateId, token, LEASE_SECONDS).then(
              (renewed) => (token = renewed),
              // Other failures are retried on the next tick; a 403 means the lease is gone for good.
              loseLease,
            );
          }, RENEW_EVERY_MS);
      renewal?.unref();
      const stop = () => renewal && clearInterval(renewal);

      let base: UntypedDeployment;
      try {
        base = await backend.exportDeployment(ref);
      } catch (error) {
        stop();
        await backend.completeUpdate(ref, updateId, token, 'failed').catch(() => undefined);
        throw error;
      }

      // Events go out in order, one batch at a time; like the Pulumi CLI, a failed delivery never fails the run.
      let queued: unknown[] = [];
      let delivery = Promise.resolve();
      const flush = () => {
        const batch = queued.splice(0, EVENT_BATCH);
        if (batch.length === 0) return;
        delivery = delivery.then(() => backend.recordEvents(ref, updateId, token, batch).catch(loseLease));
        if (queued.length > 0) flush();
      };

      return {
        base: base as EngineDeployment,
        lost: lost.signal,
        persister: dryRun
          ? undefined
          : {
              save: (checkpoint) =>
                backend.saveCheckpoint(ref, updateId, token, JSON.parse(checkpoint.text) as UntypedDeployment).catch((error: unknown) => {
                  loseLease(error);
                  throw error;
                }),
            },
        recordEvents(events) {
          queued.push(...events);
          if (queued.length >= EVENT_BATCH) flush();
        },
        async complete(outcome) {
          stop();
          flush();
          await delivery;
          queued = [];
          await backend.completeUpdate(ref, updateId, token, outcome.status);
        },
      };
    },
  };
}
