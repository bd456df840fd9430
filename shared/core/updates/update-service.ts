/**
 * The update lifecycle (pulumi-service-api.md §3.4, §4): create, start (lease or dry-run token), state saves,
 * events, renew, complete, cancel. The verbs are here; the concerns are modules of their own: starting (lease,
 * gates: starting.ts), saving (checkpoint, journal, delta, events: saving.ts), settling (complete, cancel:
 * settling.ts; folding a crashed update: update-records.ts), and the update token (update-token.ts).
 *
 * Design for the hot path (`PATCH …/checkpoint`): the update id embeds the stack's immutable id, so update-token
 * routes never resolve the name in the URL; the token check is ONE conditional write on the stack's lease item
 * (`LeaseStore.nextSave`: token hash, update id, expiry and the stack name the lease was granted under, all in the
 * condition) that also hands out the save's number; the save is then ONE write-once object
 * `updates/<updateId>/checkpoints/<n>-<count>`. The stack record is written only at start, complete and cancel (and when a
 * crashed update is folded); until then export reads the running update's latest save (`../state/stack-state.ts`).
 *
 * Ending a non-dry-run update ("settling" it: complete, cancel, or folding a crashed one) is ordered so a crash at
 * any point is repaired by repeating the call: the update record (status, version, the checkpoint it produced) is
 * written first, then its history entry, then ONE conditional stack write moves version and current checkpoint and
 * clears `activeUpdate`; the lease goes last.
 */
import { InvalidInputError } from '../errors.js';
import type { StackRef } from '../names.js';
import { loadStack } from '../kernel/authorization.js';
import type { ServiceDeps } from '../kernel/deps.js';
import type { Principal } from '../kernel/principal.js';
import { requiredPolicies } from '../policy/index.js';
import { newUpdateId } from '../state/stack-state.js';
import { recordEvents, saveCheckpoint, saveDeltaCheckpoint, saveJournalEntries, saveVerbatimCheckpoint } from './saving.js';
import { stampRun } from './run-updates.js';
import { cancelUpdate, completeUpdate } from './settling.js';
import { leaseDurations, updateStarter } from './starting.js';
import type { CreateUpdateRequest, UpdateService } from './types.js';
import { updateStatus } from './update-records.js';
import { epochSeconds, tokenRef } from './update-token.js';

const CREATABLE_KINDS: ReadonlySet<string> = new Set(['update', 'preview', 'refresh', 'destroy', 'resource-import']);
const MAX_MESSAGE_LENGTH = 4096;

/** The update lifecycle on `deps`: each verb checks its caller (principal or update token) and delegates. */
export function createUpdateService(deps: ServiceDeps): UpdateService {
  const { storage } = deps;
  const leaseDuration = leaseDurations(deps);
  const start = updateStarter(deps, leaseDuration);

  return {
    async create(principal: Principal, ref: StackRef, request: CreateUpdateRequest) {
      const stack = await loadStack(deps, principal, ref, 'update');
      if (!request || !CREATABLE_KINDS.has(request.kind)) {
        throw new InvalidInputError(
          `Unknown update kind '${String(request?.kind)}': expected update, preview, refresh, destroy or ` +
            `resource-import.`,
        );
      }
      const { message } = request;
      if (message !== undefined && (typeof message !== 'string' || message.length > MAX_MESSAGE_LENGTH)) {
        throw new InvalidInputError(`The update message must be text of at most ${MAX_MESSAGE_LENGTH} characters.`);
      }
      const environment = request.environment ?? {};
      const textValues = (map: object) => Object.values(map).every((v) => typeof v === 'string');
      if (typeof environment !== 'object' || Array.isArray(environment) || !textValues(environment)) {
        throw new InvalidInputError('The update environment must map names to strings.');
      }
      const config = request.config ?? {};
      if (typeof config !== 'object' || Array.isArray(config)) {
        throw new InvalidInputError('The update config must be an object.');
      }
      const id = newUpdateId(stack.id);
      // The packs answered to the client are the packs its events must show (settling.ts): one snapshot, so a pack
      // enabled while the update runs does not fail it.
      const required = await requiredPolicies(deps, stack);
      await storage.updates.create({
        id,
        stackId: stack.id,
        kind: request.kind,
        dryRun: request.dryRun === true || request.kind === 'preview',
        status: 'not-started',
        requestedBy: principal.login,
        createdAt: deps.now(),
        ...(message ? { message } : {}),
        environment: stampRun(principal, environment),
        config,
        requiredPolicies: required.map((pack) => ({ name: pack.name, versionTag: pack.versionTag })),
      });
      return { updateId: id, requiredPolicies: required };
    },

    start,

    async renew(ref: StackRef, updateId: string, token: string, durationMs?: number) {
      const grant = await storage.leases.renew(tokenRef(ref, updateId, token), leaseDuration(durationMs));
      return { token: grant.token, tokenExpiration: epochSeconds(grant.expiresAt) };
    },

    saveCheckpoint: (...args) => saveCheckpoint(deps, ...args),
    saveVerbatimCheckpoint: (...args) => saveVerbatimCheckpoint(deps, ...args),
    saveDeltaCheckpoint: (...args) => saveDeltaCheckpoint(deps, ...args),
    saveJournalEntries: (...args) => saveJournalEntries(deps, ...args),

    async validateToken(ref: StackRef, updateId: string, token: string) {
      await storage.leases.validate(tokenRef(ref, updateId, token));
    },

    recordEvents: (...args) => recordEvents(deps, ...args),
    complete: (...args) => completeUpdate(deps, ...args),
    cancel: (...args) => cancelUpdate(deps, ...args),
    status: (...args) => updateStatus(deps, ...args),
  };
}
