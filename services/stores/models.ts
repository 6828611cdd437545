import { Schema, type Connection, type Model } from 'mongoose';
import { storeEventOutcomes } from '../../libs/contracts/stores/received-store-events.js';
import { storeProviders } from '../../libs/contracts/stores/store-connections.js';
import type {
  KeptEndingRecord,
  StoreConnectionRecord,
  StoreEventRecord,
  StoreLinkRecord,
  StoreMappingRecord,
} from './stores.js';

export interface StoreConnectionDocument extends Omit<StoreConnectionRecord, 'id'> {
  _id: number;
}
export interface StoreMappingDocument extends Omit<StoreMappingRecord, 'id'> {
  _id: number;
}
/** An event with the claim of the applier applying it, held until `claimed_until`. */
export interface StoreEventDocument extends Omit<StoreEventRecord, 'id'> {
  _id: number;
  claim: string | null;
  claimed_until: Date | null;
}
/** A link under its license key: one license, one link. */
export interface StoreLinkDocument extends Omit<StoreLinkRecord, 'license_key'> {
  _id: string;
}

export interface StoreModels {
  Connection: Model<StoreConnectionDocument>;
  Mapping: Model<StoreMappingDocument>;
  Event: Model<StoreEventDocument>;
  Link: Model<StoreLinkDocument>;
  Ending: Model<KeptEndingRecord>;
}

const nullableString = { type: String, default: null };
const nullableDate = { type: Date, default: null };

export function storeModels(connection: Connection): StoreModels {
  const secret = new Schema(
    { secret: { type: String, required: true }, expires_at: nullableDate },
    { _id: false },
  );
  const storeConnection = new Schema<StoreConnectionDocument>(
    {
      _id: { type: Number, required: true },
      name: { type: String, required: true },
      provider: { type: String, enum: storeProviders, required: true },
      mode: { type: String, enum: ['test', 'live'], required: true },
      secrets: { type: [secret], required: true },
      api_key: nullableString,
      grace_days: { type: Number, required: true },
      emails: {
        created: { type: Boolean, required: true },
        renewed: { type: Boolean, required: true },
        suspended: { type: Boolean, required: true },
        cancelled: { type: Boolean, required: true },
      },
      secret_rotated_at: nullableDate,
      created_at: { type: Date, required: true },
      updated_at: { type: Date, required: true },
    },
    { collection: 'store_connections', versionKey: false },
  );

  const mapping = new Schema<StoreMappingDocument>(
    {
      _id: { type: Number, required: true },
      connection_id: { type: Number, required: true },
      external_id: { type: String, required: true },
      product_id: { type: Number, required: true },
      plan_id: { type: Number, required: true },
      renewal: { type: String, enum: ['gateway', 'checkout'], required: true },
      duration_days: { type: Number, default: null },
      created_at: { type: Date, required: true },
      updated_at: { type: Date, required: true },
    },
    { collection: 'store_mappings', versionKey: false },
  );
  // One mapping per id a connection's events carry; the applier's lookup.
  mapping.index({ connection_id: 1, external_id: 1 }, { unique: true });

  const mail = new Schema(
    {
      outcome: { type: String, required: true },
      moment: { type: String, required: true },
      detail: nullableString,
      at: { type: Date, required: true },
    },
    { _id: false },
  );
  const event = new Schema<StoreEventDocument>(
    {
      _id: { type: Number, required: true },
      connection_id: { type: Number, required: true },
      event_id: { type: String, required: true },
      type: { type: String, required: true },
      received_at: { type: Date, required: true },
      occurred_at: nullableDate,
      order_id: nullableString,
      subscription_id: nullableString,
      external_ids: { type: [String], default: [] },
      outcome: { type: String, enum: storeEventOutcomes, required: true },
      detail: nullableString,
      attempts: { type: Number, default: 0 },
      license_key: nullableString,
      mail: { type: [mail], default: [] },
      applied_at: nullableDate,
      body: { type: String, required: true },
      headers: { type: Schema.Types.Mixed, default: {} },
      due_at: nullableDate,
      claim: nullableString,
      claimed_until: nullableDate,
    },
    { collection: 'store_events', versionKey: false, minimize: false },
  );
  // An event is written once: a delivery sent again, or twice at once, is refused by this index.
  event.index({ connection_id: 1, event_id: 1 }, { unique: true });
  // The appliers' question: which pending event is due first.
  event.index({ outcome: 1, due_at: 1 });
  // The event log, newest first, by connection and outcome.
  event.index({ connection_id: 1, outcome: 1, _id: -1 });
  event.index({ outcome: 1, _id: -1 });

  const link = new Schema<StoreLinkDocument>(
    {
      _id: { type: String, required: true },
      connection_id: { type: Number, required: true },
      order_id: nullableString,
      subscription_id: nullableString,
      renewal_order_ids: { type: [String], default: [] },
      resubscription_ids: { type: [String], default: [] },
      status: { type: String, required: true },
      past_due_since: nullableDate,
      last_applied_at: nullableDate,
      grace_suspended_at: nullableDate,
    },
    { collection: 'store_links', versionKey: false },
  );
  link.index({ connection_id: 1, subscription_id: 1 });
  link.index({ connection_id: 1, order_id: 1 });
  link.index({ connection_id: 1, renewal_order_ids: 1 });
  link.index({ connection_id: 1, resubscription_ids: 1 });
  // The grace sweep's question: which past-due links are not suspended yet.
  link.index({ connection_id: 1, past_due_since: 1, grace_suspended_at: 1 });

  const ending = new Schema<KeptEndingRecord>(
    {
      connection_id: { type: Number, required: true },
      event_id: { type: String, required: true },
      order_id: nullableString,
      subscription_id: nullableString,
      kind: {
        type: String,
        enum: ['refunded', 'chargeback', 'subscription_ended'],
        required: true,
      },
      period_start: nullableDate,
      occurred_at: { type: Date, required: true },
      kept_at: { type: Date, required: true },
      applied_to: nullableString,
    },
    { collection: 'store_kept_endings', versionKey: false },
  );
  // An ending is kept once, however often its event is applied.
  ending.index({ connection_id: 1, event_id: 1 }, { unique: true });
  // The question of a license just made: which endings name its order or subscription.
  ending.index({ connection_id: 1, order_id: 1 });
  ending.index({ connection_id: 1, subscription_id: 1 });

  return {
    Connection: connection.model<StoreConnectionDocument>('StoreConnection', storeConnection),
    Mapping: connection.model<StoreMappingDocument>('StoreMapping', mapping),
    Event: connection.model<StoreEventDocument>('StoreEvent', event),
    Link: connection.model<StoreLinkDocument>('StoreLink', link),
    Ending: connection.model<KeptEndingRecord>('StoreKeptEnding', ending),
  };
}
