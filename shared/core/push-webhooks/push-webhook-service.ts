/**
 * Push to deploy (docs/deployments.md): a signed webhook from GitHub, GitLab or any git server queues an `update`
 * for a push to the branch a stack's deployment settings follow (and their path filter), or a `preview` for a pull
 * request into it. Order, each step refusing before anything is written:
 *   size cap → sender (by its headers) → stack and its sealed secret → constant-time signature check → delivery id
 *   and payload → the delivery id recorded (create-if-absent: a replay is 409) → the settings' filters → one run queued.
 * No caller credentials: the signature is the authentication, and an unknown stack, a stack without a secret and a
 * bad signature all get one 401, so the endpoint tells an unsigned caller nothing about which stacks exist.
 */
import { ConflictError, NotFoundError, TooLargeError, UnauthorizedError } from '../errors.js';
import { formatStackRef, type StackRef } from '../names.js';
import type { DeploymentRun } from '../../ports/deployment-store.js';
import type { StackRecord } from '../../ports/stack-store.js';
import { audited } from '../audit/audit.js';
import { queueRun } from '../deployments/run-queue.js';
import { gitSource, sealedWebhookSecret } from '../deployments/settings.js';
import type { ServiceDeps } from '../kernel/deps.js';
import type { RequestInfo } from '../kernel/principal.js';
import { readTrigger, type Trigger } from './events.js';
import { pathsMatch } from './path-filter.js';
import { providerOf, readEnvelope, signatureMatches, type DeliveryEnvelope } from './signatures.js';

/** The largest webhook body read (GitHub sends at most 25 MB, but a push that big names far more than a deploy needs). */
export const MAX_WEBHOOK_BODY_BYTES = 2 * 1024 * 1024;
/** How long a delivery id is remembered: a replay within it is refused (409). */
export const DELIVERY_RETENTION_MS = 7 * 24 * 3_600_000;

/** A delivery as the HTTP edge hands it over: headers lower-cased, the body bytes as signed. */
export interface WebhookDelivery {
  headers: Readonly<Record<string, string | undefined>>;
  body: Buffer;
  request?: RequestInfo;
}

/** What became of a verified delivery: a run queued, or why none was. */
export type WebhookOutcome =
  | { queued: true; deploymentId: string; version: number; operation: 'update' | 'preview' }
  | { queued: false; reason: string };

/** Receives push webhooks. */
export interface PushWebhookService {
  receive(ref: StackRef, delivery: WebhookDelivery): Promise<WebhookOutcome>;
}

const NOT_VERIFIED =
  "The webhook's signature does not verify: sign it with the stack's push webhook secret (pushWebhook.secret in its " +
  'deployment settings) as GitHub (X-Hub-Signature-256), GitLab (X-Gitlab-Token) or the generic form ' +
  '(X-Stackyard-Signature-256) signs it, to that stack\'s URL (docs/deployments.md, "Push to deploy").';

const PROVIDER_NAMES = { github: 'GitHub', gitlab: 'GitLab', git: 'git' } as const;

type Json = Record<string, unknown>;

/** The pull request a preview is for, where its result may be posted back (result-post.ts). */
function origin(envelope: DeliveryEnvelope, trigger: Trigger): Pick<DeploymentRun, 'pullRequest'> {
  if (trigger.kind !== 'pull-request' || trigger.number === undefined || envelope.provider === 'git') return {};
  return { pullRequest: { provider: envelope.provider, number: trigger.number, commit: trigger.commit } };
}

export function createPushWebhookService(deps: ServiceDeps): PushWebhookService {
  const store = () => deps.storage.deployments;

  async function stackOf(ref: StackRef): Promise<StackRecord> {
    try {
      return await deps.storage.stacks.get(ref);
    } catch (error) {
      if (error instanceof NotFoundError) throw new UnauthorizedError(NOT_VERIFIED);
      throw error;
    }
  }

  /** The run a trigger asks of these settings, or why it asks none. */
  function decide(trigger: Trigger, settings: Json): { operation: 'update' | 'preview'; commit: string } | { reason: string } {
    if (trigger.kind === 'ignored') return { reason: trigger.reason };
    const followed = gitSource(settings)?.branch;
    if (!followed) return { reason: 'the stack follows no branch (sourceContext.git.branch)' };
    const gitHub = (typeof settings.gitHub === 'object' && settings.gitHub !== null ? settings.gitHub : {}) as Json;
    if (trigger.kind === 'pull-request') {
      if (trigger.targetBranch !== followed) return { reason: `a pull request into ${trigger.targetBranch}, not ${followed}` };
      if (gitHub.previewPullRequests === false) return { reason: 'gitHub.previewPullRequests is false' };
      return { operation: 'preview', commit: trigger.commit };
    }
    if (trigger.branch !== followed) return { reason: `a push to ${trigger.branch}, not ${followed}` };
    if (gitHub.deployCommits === false) return { reason: 'gitHub.deployCommits is false' };
    const paths = Array.isArray(gitHub.paths) ? (gitHub.paths as string[]) : [];
    // A payload that lists no files cannot be judged by the filter: the push deploys (docs/deployments.md).
    if (paths.length > 0 && trigger.files && !pathsMatch(paths, trigger.files)) return { reason: 'no changed file matches gitHub.paths' };
    return { operation: 'update', commit: trigger.commit };
  }

  async function queue(stack: StackRecord, envelope: DeliveryEnvelope, trigger: Trigger, run: { operation: 'update' | 'preview'; commit: string }, requestedBy: string, request?: RequestInfo) {
    const target = formatStackRef(stack);
    const initiator = `webhook:${envelope.provider}`;
    const what = trigger.kind === 'pull-request' ? `pull request${trigger.number !== undefined ? ` ${trigger.number}` : ''} into ${trigger.targetBranch}` : `push to ${trigger.kind === 'push' ? trigger.branch : ''}`;
    return audited(
      deps,
      { login: initiator, ...(request ? { request } : {}) },
      {
        org: stack.org,
        event: 'deployment.queued',
        target,
        description: `a ${PROVIDER_NAMES[envelope.provider]} ${what} (delivery ${envelope.deliveryId}) queued ${run.operation === 'update' ? 'an' : 'a'} ${run.operation} deployment of ${target} at ${run.commit.slice(0, 12)}, as ${requestedBy}`,
      },
      // The pushed commit, not the branch's tip at run time: a later push queues its own run.
      () => queueRun(deps, stack, { operation: run.operation, sourceContext: { git: { branch: null, commit: run.commit } } }, requestedBy, initiator, origin(envelope, trigger)),
    );
  }

  return {
    async receive(ref, delivery) {
      if (delivery.body.length > MAX_WEBHOOK_BODY_BYTES) {
        throw new TooLargeError(`The webhook body is over ${MAX_WEBHOOK_BODY_BYTES} bytes; nothing was queued.`);
      }
      const provider = providerOf(delivery.headers);
      if (!provider) throw new UnauthorizedError(NOT_VERIFIED);
      const stack = await stackOf(ref);
      const record = await store().getSettings(stack.id);
      const sealed = record && sealedWebhookSecret(record.settings);
      if (!record || !sealed) throw new UnauthorizedError(NOT_VERIFIED);
      const [opened] = await deps.keys.decryptForStack(stack, [sealed]);
      if (!signatureMatches(provider, delivery.headers, delivery.body, Buffer.from(opened!).toString('utf8'))) {
        throw new UnauthorizedError(NOT_VERIFIED);
      }
      const envelope = readEnvelope(provider, delivery.headers);
      const trigger = readTrigger(envelope, delivery.body);
      const now = deps.now();
      if (!(await store().recordDelivery(stack.id, `${envelope.provider}:${envelope.deliveryId}`, now, now + DELIVERY_RETENTION_MS))) {
        throw new ConflictError(`Delivery ${envelope.deliveryId} was received before: a replayed delivery queues nothing.`);
      }
      const decision = decide(trigger, record.settings);
      if ('reason' in decision) return { queued: false, reason: decision.reason };
      // The run acts as whoever last configured the stack's deployment settings (the secret's owner).
      const run = await queue(stack, envelope, trigger, decision, record.modifiedBy, delivery.request);
      return { queued: true, deploymentId: run.id, version: run.version, operation: decision.operation };
    },
  };
}

