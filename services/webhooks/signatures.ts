import { createHash, createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks (standardwebhooks.com): the secrets, the `webhook-id` of each delivery and
 * the `webhook-signature` of each attempt.
 */

const SECRET_PREFIX = 'whsec_';

/** `whsec_` and the base64 of 32 random bytes. */
export function generateSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/**
 * The `webhook-id` of an event's delivery to an endpoint: derived from both, so an event
 * delivered twice by the message bus makes one delivery, not two.
 */
export function deliveryIdFor(eventId: string, endpointId: number): string {
  const digest = createHash('sha256').update(`${eventId}:${endpointId}`).digest('hex');
  return `msg_${digest.slice(0, 32)}`;
}

/** The `webhook-id` of a test event: new every time. */
export function testDeliveryId(): string {
  return `msg_${randomBytes(16).toString('hex')}`;
}

/** The body of a delivery: `{"type", "timestamp", "data"}`. */
export function webhookPayload(type: string, timestamp: string, data: unknown): string {
  return JSON.stringify({ type, timestamp, data });
}

/**
 * `webhook-signature`: `v1,` and the base64 HMAC-SHA256 of `{id}.{timestamp}.{body}` under each
 * secret (the base64 after `whsec_` is the key), separated by spaces, the current secret first.
 */
export function signatureHeader(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string,
): string {
  const content = `${id}.${timestamp}.${body}`;
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
      return `v1,${createHmac('sha256', key).update(content).digest('base64')}`;
    })
    .join(' ');
}
