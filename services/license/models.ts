import { Schema, type Connection, type Model, type Types } from 'mongoose';
import { activationTypes, licenseStatuses } from '../../libs/contracts/index.js';
import type {
  ActivationRecord,
  LicenseRecord,
  PlanRecord,
  RejectedAttemptRecord,
} from './stores.js';

/** The stored shapes: the records of stores.ts under MongoDB's ids. */
export interface PlanDocument extends Omit<PlanRecord, 'id'> {
  _id: number;
}

/**
 * A license with its activations embedded: the activation limit is enforced by one atomic
 * update of one document, which holds under any number of concurrent requests and replicas
 * without transactions (docs/architecture.md).
 */
export interface LicenseDocument extends LicenseRecord {
  _id: Types.ObjectId;
  updated_at: Date;
}

export type RejectedAttemptDocument = RejectedAttemptRecord;

export interface LicenseModels {
  Plan: Model<PlanDocument>;
  License: Model<LicenseDocument>;
  RejectedAttempt: Model<RejectedAttemptDocument>;
}

export function licenseModels(connection: Connection): LicenseModels {
  const planSchema = new Schema<PlanDocument>(
    {
      _id: { type: Number, required: true },
      name: { type: String, required: true },
      activation_type: { type: String, enum: activationTypes, required: true },
      activation_limit: { type: Number, required: true, min: 0 },
    },
    {
      collection: 'plans',
      versionKey: false,
      timestamps: { createdAt: 'created_at', updatedAt: false },
    },
  );

  const activationSchema = new Schema<ActivationRecord>(
    {
      identifier: { type: String, required: true },
      identifier_key: { type: String, required: true },
      name: { type: String, default: null },
      ip: { type: String, default: '' },
      activated_at: { type: Date, required: true },
    },
    { _id: false },
  );

  const licenseSchema = new Schema<LicenseDocument>(
    {
      license_key: { type: String, required: true, unique: true },
      product_id: { type: Number, required: true },
      plan_id: { type: Number, required: true },
      status: { type: String, enum: licenseStatuses, required: true },
      expires_at: { type: Date, default: null },
      auto_renew: { type: Boolean, default: false },
      next_payment_at: { type: Date, default: null },
      activation_type: { type: String, enum: activationTypes, required: true },
      activation_limit: { type: Number, required: true, min: 0 },
      activations: { type: [activationSchema], default: [] },
      last_check_at: { type: Date, default: null },
      last_check_ip: { type: String, default: null },
      check_count: { type: Number, default: 0 },
    },
    {
      collection: 'licenses',
      versionKey: false,
      timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' },
    },
  );
  // The scheduled expiry task looks for active licenses past their date.
  licenseSchema.index({ status: 1, expires_at: 1 });

  const rejectedAttemptSchema = new Schema<RejectedAttemptDocument>(
    {
      license_key: { type: String, required: true },
      identifier: { type: String, required: true },
      identifier_key: { type: String, required: true },
      tries: { type: Number, required: true },
      last_attempt_at: { type: Date, required: true },
    },
    { collection: 'rejected_attempts', versionKey: false },
  );
  rejectedAttemptSchema.index({ license_key: 1, identifier_key: 1 }, { unique: true });
  // Spec 2.5: rows untouched for 90 days are pruned by a scheduled task.
  rejectedAttemptSchema.index({ last_attempt_at: 1 });

  return {
    Plan: connection.model<PlanDocument>('Plan', planSchema),
    License: connection.model<LicenseDocument>('License', licenseSchema),
    RejectedAttempt: connection.model<RejectedAttemptDocument>(
      'RejectedAttempt',
      rejectedAttemptSchema,
    ),
  };
}
