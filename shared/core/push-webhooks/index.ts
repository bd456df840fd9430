export { createPushWebhookService, MAX_WEBHOOK_BODY_BYTES, type PushWebhookService, type WebhookDelivery, type WebhookOutcome } from './push-webhook-service.js';
export { bodySignature, GENERIC_DELIVERY_HEADER, GENERIC_SIGNATURE_HEADER, type WebhookProvider } from './signatures.js';
