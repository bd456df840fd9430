/**
 * Who sent a push webhook and whether it is signed with the stack's secret (docs/deployments.md, "Push to deploy"):
 * GitHub (`X-Hub-Signature-256`, an HMAC-SHA256 of the body), GitLab (`X-Gitlab-Token`, the secret itself) and
 * Stackyard's generic form for any git server (`X-Stackyard-Signature-256`, GitHub's scheme under our name).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidInputError } from '../errors.js';

/** The senders a push webhook understands. */
export type WebhookProvider = 'github' | 'gitlab' | 'git';

/** A delivery's envelope, read from its headers before anything is trusted. */
export interface DeliveryEnvelope {
  provider: WebhookProvider;
  /** The sender's id of this delivery: the replay guard's key. */
  deliveryId: string;
  /** The sender's event name (`push`, `pull_request`, `Push Hook`, `Merge Request Hook`; `push` for the generic form). */
  event: string;
}

type Headers = Readonly<Record<string, string | undefined>>;

/** Headers of Stackyard's generic push webhook. */
export const GENERIC_DELIVERY_HEADER = 'x-stackyard-delivery';
export const GENERIC_SIGNATURE_HEADER = 'x-stackyard-signature-256';

const DELIVERY_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

function deliveryId(headers: Headers, name: string): string {
  const id = headers[name]?.trim();
  if (!id) throw new InvalidInputError(`The webhook has no ${name} header: each delivery needs an id (the replay guard's key).`);
  if (!DELIVERY_ID.test(id)) throw new InvalidInputError(`${name} must be 1 to 128 letters, digits, '.', '_', ':' or '-'.`);
  return id;
}

/** Which sender a delivery comes from, by the headers each one sets; `undefined` for none Stackyard reads. */
export function providerOf(headers: Headers): WebhookProvider | undefined {
  if (headers['x-github-event'] !== undefined) return 'github';
  if (headers['x-gitlab-event'] !== undefined) return 'gitlab';
  if (headers[GENERIC_SIGNATURE_HEADER] !== undefined || headers[GENERIC_DELIVERY_HEADER] !== undefined) return 'git';
  return undefined;
}

/** A verified delivery's id and event; a delivery without an id is refused (it could not be guarded against replay). */
export function readEnvelope(provider: WebhookProvider, headers: Headers): DeliveryEnvelope {
  switch (provider) {
    case 'github':
      return { provider, deliveryId: deliveryId(headers, 'x-github-delivery'), event: headers['x-github-event']?.trim() ?? '' };
    case 'gitlab': {
      const name = headers['x-gitlab-event-uuid'] !== undefined ? 'x-gitlab-event-uuid' : 'x-gitlab-webhook-uuid';
      return { provider, deliveryId: deliveryId(headers, name), event: headers['x-gitlab-event']?.trim() ?? '' };
    }
    case 'git':
      return { provider, deliveryId: deliveryId(headers, GENERIC_DELIVERY_HEADER), event: 'push' };
  }
}

/** Equal texts, compared in constant time whatever their lengths (both are hashed to one length first). */
function sameText(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** `sha256=<hex of HMAC-SHA256(secret, body)>`, as GitHub signs and the generic form copies. */
export function bodySignature(secret: string, body: Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Whether the delivery carries the stack's secret as its sender proves it. */
export function signatureMatches(provider: WebhookProvider, headers: Headers, body: Buffer, secret: string): boolean {
  switch (provider) {
    case 'github':
      return sameText(headers['x-hub-signature-256']?.trim() ?? '', bodySignature(secret, body));
    case 'gitlab':
      return sameText(headers['x-gitlab-token'] ?? '', secret);
    case 'git':
      return sameText(headers[GENERIC_SIGNATURE_HEADER]?.trim() ?? '', bodySignature(secret, body));
  }
}
