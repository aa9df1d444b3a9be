import { createHmac } from 'node:crypto';

/** The tenant secret whose value signs its run webhooks (`PUT /api/secrets/WEBHOOK_SIGNING_SECRET`). */
export const WEBHOOK_SECRET_NAME = 'WEBHOOK_SIGNING_SECRET';
export const WEBHOOK_SECRET_REF = `secret:${WEBHOOK_SECRET_NAME}`;

/** Headers of a webhook request. */
export const WEBHOOK_HEADERS = {
  signature: 'x-ops-signature',
  delivery: 'x-ops-delivery',
  event: 'x-ops-event',
} as const;

/** HMAC-SHA256 (hex) of `<timestamp>.<body>` with the signing secret. */
export function webhookSignature(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/** The `X-Ops-Signature` value: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` (Stripe's layout). */
export function signatureHeader(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${webhookSignature(secret, timestamp, body)}`;
}
