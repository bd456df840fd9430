/**
 * The engine's view of a stack (`OperationBackend`) on any `Backend`: each run is an update that is created,
 * started (a lease for real runs, a token for dry runs), fed journal entries (or checkpoints, when the service does
 * not journal) and engine events (whose summary gives
 * history its resource changes) and completed, the same lifecycle the Pulumi CLI drives against the service. The stack's key encrypts the state's secrets, and other
 * stacks are readable for StackReference.
 */
import { requiredPackSpecs } from '../policy/required-packs.js';
import { LeaseHeldError } from '../../shared/core/errors.js';
import { parseStackRef, type StackRef } from '../../shared/core/names.js';
import type { StackReader } from '../engine/plugins/providers/builtin-provider.js';
import { loadDeployment, type SecretsCrypter, type UntypedDeployment as EngineDeployment } from '../engine/state/deployment.js';
import { waitForLease } from '../engine/lease-wait.js';
import type { OperationBackend, OperationSession, ServicePlans } from '../engine/operation-types.js';
import { UserError } from '../output/errors.js';
import { isForbidden, isNotFound, secretsProviderFor, type Backend, type UntypedDeployment, type UpdateRequest } from './backend.js';

/** The lease a run asks for: short, so a crashed run frees its stack within a minute. */
export const DEFAULT_LEASE_SECONDS = 60;

/** How long a run's lease lasts and how often it is renewed (a quarter of the lease unless set). */
export interface LeaseSettings {
  durationSeconds: number;
  renewEveryMs: number;
}

function positiveNumber(name: string, text: string | undefined): number | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new UserError(`${name} must be a positive number of seconds, not '${text}'`);
  return value;
}

/** `STACKYARD_LEASE_SECONDS` (whole seconds, default 60) and `STACKYARD_LEASE_RENEW_SECONDS` (default a quarter of it). */
export function leaseSettings(env: NodeJS.ProcessEnv = process.env): LeaseSettings {
  const durationSeconds = Math.max(1, Math.round(positiveNumber('STACKYARD_LEASE_SECONDS', env.STACKYARD_LEASE_SECONDS) ?? DEFAULT_LEASE_SECONDS));
  const renewSeconds = positiveNumber('STACKYARD_LEASE_RENEW_SECONDS', env.STACKYARD_LEASE_RENEW_SECONDS) ?? durationSeconds / 4;
  return { durationSeconds, renewEveryMs: Math.max(100, Math.round(Math.min(renewSeconds, durationSeconds) * 1000)) };
}

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
  /** Defaults to `leaseSettings()` from the environment. */
  lease?: LeaseSettings;
  /** Ask for journaling (default: unless `STACKYARD_DISABLE_JOURNALING` or `PULUMI_DISABLE_JOURNALING` is `true`). */
  journaling?: boolean;
}

/** Whether runs ask the service for journaling: on, unless turned off the way the `pulumi` CLI lets users do it. */
export function journalingWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.STACKYARD_DISABLE_JOURNALING !== 'true' && env.PULUMI_DISABLE_JOURNALING !== 'true';
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
/** A partial batch waits at most this long; the Pulumi CLI uses 4 s. */
const EVENT_FLUSH_MS = 2_000;
/** Batches on the wire at once, as in the Pulumi CLI. */
const EVENTS_IN_FLIGHT = 3;

/** Why the run lost its lease, for `error: the update was cancelled or its lease expired: <reason>`. */
function leaseLostReason(call: string, error: unknown): Error {
  const detail = error instanceof Error ? error.message : String(error);
  return new Error(`the service refused the ${call} (${detail}); another run may now hold the stack`, { cause: error });
}

/**
 * Sends engine events in batches of at most `EVENT_BATCH`, a partial batch after `EVENT_FLUSH_MS`, with up to
 * `EVENTS_IN_FLIGHT` batches on the wire. Delivery failures never fail the run; `onError` sees them.
 */
function eventSender(send: (batch: unknown[]) => Promise<void>, onError: (error: unknown) => void) {
  let queued: unknown[] = [];
  let inFlight = 0;
  let sendPartial = false;
  let timer: NodeJS.Timeout | undefined;
  let idle: (() => void) | undefined;

  const pump = () => {
    while (inFlight < EVENTS_IN_FLIGHT && (queued.length >= EVENT_BATCH || (sendPartial && queued.length > 0))) {
      const batch = queued.splice(0, EVENT_BATCH);
      inFlight++;
      send(batch)
        .catch(onError)
        .finally(() => {
          inFlight--;
          pump();
        });
    }
    if (queued.length === 0) sendPartial = false;
    if (queued.length === 0 && inFlight === 0) idle?.();
  };

  return {
    add(events: unknown[]) {
      queued.push(...events);
      if (timer === undefined && queued.length > 0) {
        timer = setTimeout(() => {
          timer = undefined;
          sendPartial = true;
          pump();
        }, EVENT_FLUSH_MS);
        timer.unref();
      }
      pump();
    },
    /** Sends everything queued; resolves when nothing is on the wire. */
    drain(): Promise<void> {
      clearTimeout(timer);
      timer = undefined;
      sendPartial = true;
      const done = new Promise<void>((resolve) => (idle = resolve));
      pump();
      return done;
    },
    /** Drops what is queued (the lease is gone: the service would refuse it). */
    discard() {
      queued = [];
      pump();
    },
  };
}

/** An update's page in the web console, laid out as Pulumi Cloud's (`/<org>/<project>/<stack>/updates/<version>`). */
function consolePermalink(serviceUrl: string, ref: StackRef, page: string): string {
  const stackPath = [ref.org, ref.project, ref.stack].map(encodeURIComponent).join('/');
  return `${serviceUrl.replace(/\/+$/, '')}/${stackPath}/${page}`;
}

/** The stack's plans on the service, for `preview --save-plan` (upload) and `up --plan <id>`. */
function servicePlans(backend: Backend, ref: StackRef): ServicePlans {
  return {
    upload: (plan, programDigest) => backend.approvals().uploadPlan(ref, plan, programDigest),
    get: (id) => backend.approvals().getPlan(ref, id),
  };
}

export function createOperationBackend(target: OperationTarget): OperationBackend {
  const { backend, ref } = target;
  /** Updates this backend started: a lease one of them holds is the run's own, never a conflict. */
  const own = new Set<string>();
  const activeUpdateConflict = async () => {
    const lease = await backend.liveLease(ref);
    return lease && !own.has(lease.updateId) ? new LeaseHeldError(lease) : undefined;
  };
  return {
    banner: { stack: ref.stack, style: backend.kind },
    currentState: async () => (await backend.exportDeployment(ref)) as EngineDeployment,
    stackHead: async () => {
      const [last] = await backend.history(ref, 1, 1);
      return last ? { version: last.version, by: last.requestedBy, at: last.endTime ?? last.startTime } : undefined;
    },
    crypter: stackCrypter(backend, ref),
    readStack: stackReader(backend, ref),
    activeUpdateConflict,
    ...(backend.kind === 'service' ? { plans: servicePlans(backend, ref) } : {}),
    async begin(kind, dryRun, options): Promise<OperationSession> {
      const lease = target.lease ?? leaseSettings();
      const { updateId, requiredPolicies } = await backend.createUpdate(ref, {
        kind,
        dryRun,
        message: target.message,
        environment: target.environment,
        config: target.config,
        program: target.program,
      });
      own.add(updateId);
      const journaling = !dryRun && (target.journaling ?? journalingWanted());
      const start = () =>
        backend.startUpdate(ref, updateId, target.tags, {
          leaseDurationSeconds: lease.durationSeconds,
          ...(journaling ? { journalVersion: 1 } : {}),
          ...(options?.plan && !dryRun ? { stackyardPlan: options.plan } : {}),
        });
      const started = options?.wait && !dryRun ? await waitForLease(start, options.wait) : await start();
      let token = started.token;
      let completed = false;
      const lost = new AbortController();
      const loseLease = (call: string) => (error: unknown) => {
        if (!isForbidden(error) || lost.signal.aborted || completed) return;
        lost.abort(leaseLostReason(call, error));
        stop();
        events.discard();
      };
      // Dry runs renew too: their token lapses with the same duration.
      const renewal = setInterval(() => {
        backend.renewLease(ref, updateId, token, lease.durationSeconds).then(
          (renewed) => (token = renewed),
          // Other failures are retried on the next tick; a 403 means the lease is gone for good.
          loseLease('lease renewal'),
        );
      }, lease.renewEveryMs);
      renewal.unref();
      const stop = () => clearInterval(renewal);
      const events = eventSender((batch) => backend.recordEvents(ref, updateId, token, batch), loseLease('engine events'));

      let base: UntypedDeployment;
      try {
        base = await backend.exportDeployment(ref);
      } catch (error) {
        stop();
        await backend.completeUpdate(ref, updateId, token, 'failed').catch(() => undefined);
        throw error;
      }

      return {
        base: base as EngineDeployment,
        lost: lost.signal,
        ...(backend.kind === 'service' && 'url' in backend ? { permalink: consolePermalink(String(backend.url), ref, dryRun ? `previews/${updateId}` : `updates/${started.version}`) } : {}),
        persister: dryRun
          ? undefined
          : {
              save: (checkpoint) =>
                backend.saveCheckpoint(ref, updateId, token, JSON.parse(checkpoint.text) as UntypedDeployment).catch((error: unknown) => {
                  loseLease('checkpoint')(error);
                  throw error;
                }),
            },
        // Each save then sends only the entries of the steps since the last one, not the whole state.
        journal:
          journaling && started.journalVersion === 1
            ? {
                append: (entries) =>
                  backend.appendJournalEntries(ref, updateId, token, entries).catch((error: unknown) => {
                    loseLease('journal entries')(error);
                    throw error;
                  }),
              }
            : undefined,
        recordEvents: (batch) => events.add(batch),
        stackTags: async () => (await backend.getStack(ref)).tags,
        // the packs are the stack's organization's (Pulumi's update owner), downloaded with this backend's token
        ...(requiredPolicies.length
          ? { requiredPolicyPacks: (o: { env: NodeJS.ProcessEnv; onProgress: (line: string) => void }) => requiredPackSpecs(ref.org, requiredPolicies, { ...o, download: (at) => backend.policies().download(at) }) }
          : {}),
        async complete(outcome) {
          completed = true;
          stop();
          await events.drain();
          await backend.completeUpdate(ref, updateId, token, outcome.status);
        },
      };
    },
  };
}
