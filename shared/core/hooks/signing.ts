import { createHmac, timingSafeEqual } from 'node:crypto';

export const HEADER_ID = 'Pulumi-Webhook-ID';
export const HEADER_KIND = 'Pulumi-Webhook-Kind';
export const HEADER_SIGNATURE = 'Pulumi-Webhook-Signature';

/** Hex HMAC-SHA256 of the raw body with the hook's secret, as Pulumi Cloud signs webhooks. */
export function signBody(secret: string, body: string | Uint8Array): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/** For receivers (and tests): compares in constant time. */
export function verifySignature(secret: string, body: string | Uint8Array, signature: string | undefined): boolean {
  if (typeof signature !== 'string' || !/^[0-9a-f]{64}$/i.test(signature)) return false;
  const expected = Buffer.from(signBody(secret, body), 'hex');
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}
