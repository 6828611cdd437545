import { Schema, type Connection, type Model } from 'mongoose';
import { webhookDeliveryStatuses, webhookDisabledReasons } from '../../libs/contracts/index.js';
import type { WebhookDeliveryRecord, WebhookEndpointRecord } from './stores.js';

/** An endpoint (stores.ts) under MongoDB's `_id`. */
export interface WebhookEndpointDocument extends Omit<WebhookEndpointRecord, 'id'> {
  _id: number;
}

/** A delivery under its `webhook-id`, with the claim of the sender trying it. */
export interface WebhookDeliveryDocument extends Omit<WebhookDeliveryRecord, 'id'> {
  _id: string;
  claim: string | null;
}

export interface WebhookModels {
  Endpoint: Model<WebhookEndpointDocument>;
  Delivery: Model<WebhookDeliveryDocument>;
}

export function webhookModels(connection: Connection): WebhookModels {
  const endpoint = new Schema<WebhookEndpointDocument>(
    {
      _id: { type: Number, required: true },
      url: { type: String, required: true },
      events: { type: [String], required: true },
      description: { type: String, default: null },
      enabled: { type: Boolean, required: true },
      disabled_reason: { type: String, enum: [...webhookDisabledReasons, null], default: null },
      failing_since: { type: Date, default: null },
      created_at: { type: Date, required: true },
      secret_rotated_at: { type: Date, default: null },
      secrets: {
        type: [
          new Schema(
            { secret: { type: String, required: true }, expires_at: { type: Date, default: null } },
            { _id: false },
          ),
        ],
        required: true,
      },
    },
    { collection: 'endpoints', versionKey: false },
  );
  // Which enabled endpoints receive an event of a type: asked for every event.
  endpoint.index({ enabled: 1, events: 1 });

  const attempt = new Schema(
    {
      at: { type: Date, required: true },
      status: { type: Number, default: null },
      error: { type: String, default: null },
      duration_ms: { type: Number, required: true },
      response: { type: String, default: null },
    },
    { _id: false },
  );
  const delivery = new Schema<WebhookDeliveryDocument>(
    {
      _id: { type: String, required: true },
      endpoint_id: { type: Number, required: true },
      event_type: { type: String, required: true },
      event_at: { type: Date, required: true },
      payload: { type: String, required: true },
      status: { type: String, enum: webhookDeliveryStatuses, required: true },
      attempts: { type: [attempt], default: [] },
      next_attempt_at: { type: Date, default: null },
      created_at: { type: Date, required: true },
      claim: { type: String, default: null },
    },
    { collection: 'deliveries', versionKey: false },
  );
  // The senders' question: which pending delivery is due first.
  delivery.index({ status: 1, next_attempt_at: 1 });
  // The delivery log of an endpoint, newest first, by status.
  delivery.index({ endpoint_id: 1, created_at: -1, _id: -1 });
  delivery.index({ endpoint_id: 1, status: 1, created_at: -1, _id: -1 });
  return {
    Endpoint: connection.model<WebhookEndpointDocument>('WebhookEndpoint', endpoint),
    Delivery: connection.model<WebhookDeliveryDocument>('WebhookDelivery', delivery),
  };
}
