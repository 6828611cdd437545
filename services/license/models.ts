import type { Collection } from 'mongodb';
import { Schema, type Connection, type Model, type Types } from 'mongoose';
import {
  DEFAULT_EXEMPT_LIMIT,
  activationTypes,
  defaultExpiryTerms,
  expiryStrategies,
  renewalBases,
  licenseStatuses,
  rejectionReasons,
  taskNames,
  usesResets,
} from '../../libs/contracts/index.js';
import type {
  ActivationRecord,
  CustomerRecord,
  ImportedFromRecord,
  LicenseRecord,
  PlanRecord,
  RejectedAttemptRecord,
  StoreRefsRecord,
  TaskRunRecord,
} from './records.js';
import { licenseIndexes } from './licenses/license-indexes.js';

/** The stored shapes: the records of stores.ts under MongoDB's ids. */
export interface PlanDocument extends Omit<PlanRecord, 'id'> {
  _id: number;
  /**
   * The name as names are compared (rules.ts `planNameKey`), under a unique index: plan names
   * are unique (docs/api-decisions.md, "Plan names"). Plans stored before have none until the
   * service starts (plans/mongo-plan-store.ts `keepPlanNamesUnique`).
   */
  name_key: string;
}

/**
 * A license with its activations embedded: the activation limit is enforced by one atomic
 * update of one document, which holds under any number of concurrent requests and replicas
 * without transactions (docs/architecture.md, "Activations"). The store reads the activations
 * it needs and never the whole list on a hot path: `activations_used` counts them and
 * `activations_bytes` sizes them, both changed in the same updates that change the list.
 */
export interface LicenseDocument extends Omit<LicenseRecord, 'metadata' | 'customer' | 'store'> {
  _id: Types.ObjectId;
  /**
   * Absent, never null, on a license without a customer: its `customer.email` is then simply
   * missing, which the searches and orders by it read as no address.
   */
  customer?: LicenseRecord['customer'];
  /** Absent, never null, on a license not made for a store sale (licenses stored before too). */
  store?: LicenseRecord['store'];
  activations: ActivationRecord[];
  /**
   * The metadata as a list of entries, in the order given, so that one multikey index on
   * `metadata.value` finds a value under any key (licenses stored before have none).
   */
  metadata: MetadataEntry[];
  /**
   * What the activations take of the record (licenses/mongo-license-documents.ts
   * `activationBytes`), bounded by MAX_ACTIVATION_BYTES.
   */
  activations_bytes: number;
  /** The expiry whose grace `license.grace_started` announced (absent: none yet). */
  grace_started_for?: Date | null;
  /**
   * The ids of the last checks counted (activations/activation-store.ts `RECENT_CHECKS`), so a
   * request delivered again is not counted again; licenses stored before have none.
   */
  recent_checks?: string[];
  /**
   * Its usage counter (usage/mongo-usage-store.ts); licenses that never recorded a use have none.
   */
  uses?: number;
  uses_period_start?: Date;
  usage_keys?: string[];
  usage_notice_period?: Date;
  /**
   * The expiry task's write that expired it (licenses/mongo-license-store.ts `expirePastDue`), if
   * one did.
   */
  expiry_batch?: Types.ObjectId;
  updated_at: Date;
}

/** One metadata entry of a license as stored. */
export interface MetadataEntry {
  key: string;
  value: string;
}

/** Rows recorded before the last try's name, reason and source were kept have none. */
export type RejectedAttemptDocument = Omit<RejectedAttemptRecord, 'name' | 'reason' | 'source'> &
  Partial<Pick<RejectedAttemptRecord, 'name' | 'reason' | 'source'>>;

/** The scheduler's (Agenda's) job records, in the service's own database. */
export const SCHEDULED_TASKS_COLLECTION = 'scheduled_tasks';

/** The fields of a scheduler job record the service reads. */
export interface ScheduledJobDocument {
  name: string;
  nextRunAt?: Date | null;
}

/** The last run of a task, one document per task, under the task's name. */
export interface TaskRunDocument extends Omit<TaskRunRecord, 'name'> {
  _id: TaskRunRecord['name'];
}

export interface LicenseModels {
  Plan: Model<PlanDocument>;
  License: Model<LicenseDocument>;
  RejectedAttempt: Model<RejectedAttemptDocument>;
  TaskRun: Model<TaskRunDocument>;
}

/**
 * The driver's collection under the License model: the license store and read model speak to it
 * directly (licenses/mongo-license-store.ts, admin/mongo-license-read-model.ts), while the model
 * declares the schema and builds the indexes.
 */
export function licenseCollection(License: LicenseModels['License']): Collection<LicenseDocument> {
  return License.collection as unknown as Collection<LicenseDocument>;
}

export function licenseModels(connection: Connection): LicenseModels {
  const planSchema = new Schema<PlanDocument>(
    {
      _id: { type: Number, required: true },
      name: { type: String, required: true },
      name_key: { type: String, required: true },
      activation_type: { type: String, enum: activationTypes, required: true },
      activation_limit: { type: Number, required: true, min: 0 },
      lease_seconds: { type: Number, default: null },
      exempt_identifiers: { type: [String], default: [] },
      exempt_limit: { type: Number, default: DEFAULT_EXEMPT_LIMIT, min: 0 },
      max_uses: { type: Number, default: null, min: 1 },
      uses_reset: { type: String, enum: usesResets, default: 'never' },
      trial_days: { type: Number, default: null, min: 1, max: 365 },
      entitlements: { type: [String], default: [] },
      expiry_strategy: {
        type: String,
        enum: expiryStrategies,
        default: defaultExpiryTerms.expiry_strategy,
      },
      grace_days: { type: Number, default: defaultExpiryTerms.grace_days, min: 0 },
      renewal_basis: {
        type: String,
        enum: renewalBases,
        default: defaultExpiryTerms.renewal_basis,
      },
      // Set by the store from its caller's time (stores.ts), not by mongoose's timestamps.
      created_at: { type: Date, required: true },
    },
    // Its index is built once the plans stored under one name are renamed (`keepPlanNamesUnique`).
    { collection: 'plans', versionKey: false, autoIndex: false },
  );
  planSchema.index({ name_key: 1 }, { unique: true });

  const activationSchema = new Schema<ActivationRecord>(
    {
      identifier: { type: String, required: true },
      identifier_key: { type: String, required: true },
      name: { type: String, default: null },
      ip: { type: String, default: '' },
      activated_at: { type: Date, required: true },
      last_checkout_at: { type: Date, default: null },
      lease_expires_at: { type: Date, default: null },
      exempt: { type: Boolean, default: false },
    },
    { _id: false },
  );

  const customerSchema = new Schema<CustomerRecord>(
    {
      email: { type: String, required: true },
      name: { type: String, default: null },
    },
    { _id: false },
  );

  const storeRefsSchema = new Schema<
    StoreRefsRecord & { subscription_key?: string; order_key?: string }
  >(
    {
      connection_id: { type: Number, required: true },
      order_id: { type: String, default: null },
      subscription_id: { type: String, default: null },
      customer_id: { type: String, default: null },
      // The sale's unique keys (store-licenses/mongo-store-licenses.ts `saleKeys`), absent when its
      // id is null.
      subscription_key: { type: String },
      order_key: { type: String },
    },
    { _id: false },
  );

  const metadataSchema = new Schema<MetadataEntry>(
    {
      key: { type: String, required: true },
      value: { type: String, required: true },
    },
    { _id: false },
  );

  const importedFromSchema = new Schema<ImportedFromRecord>(
    {
      source: { type: String, required: true },
      source_id: { type: String, required: true },
    },
    { _id: false },
  );

  const licenseSchema = new Schema<LicenseDocument>(
    {
      license_key: { type: String, required: true },
      product_id: { type: Number, required: true },
      plan_id: { type: Number, required: true },
      status: { type: String, enum: licenseStatuses, required: true },
      expires_at: { type: Date, default: null },
      auto_renew: { type: Boolean, default: false },
      next_payment_at: { type: Date, default: null },
      activation_type: { type: String, enum: activationTypes, required: true },
      activation_limit: { type: Number, required: true, min: 0 },
      lease_seconds: { type: Number, default: null },
      exempt_identifiers: { type: [String], default: [] },
      exempt_limit: { type: Number, default: DEFAULT_EXEMPT_LIMIT, min: 0 },
      activations: { type: [activationSchema], default: [] },
      activations_used: { type: Number, required: true, min: 0 },
      exempt_used: { type: Number, default: 0, min: 0 },
      activations_bytes: { type: Number, required: true, min: 0 },
      last_check_at: { type: Date, default: null },
      last_check_ip: { type: String, default: null },
      check_count: { type: Number, default: 0 },
      recent_checks: { type: [String], default: [] },
      pending_plan_id: { type: Number, default: null },
      customer: { type: customerSchema, default: undefined },
      store: { type: storeRefsSchema, default: undefined },
      metadata: { type: [metadataSchema], default: [] },
      has_own_entitlements: { type: Boolean, default: undefined },
      imported_from: { type: importedFromSchema, default: undefined },
      // Set by the store from its caller's time (stores.ts), not by mongoose's timestamps.
      created_at: { type: Date, required: true },
      updated_at: { type: Date, required: true },
    },
    { collection: 'licenses', versionKey: false },
  );
  for (const index of licenseIndexes) licenseSchema.index(index.fields, index.options);

  const rejectedAttemptSchema = new Schema<RejectedAttemptDocument>(
    {
      license_key: { type: String, required: true },
      identifier: { type: String, required: true },
      identifier_key: { type: String, required: true },
      name: { type: String, default: null },
      reason: { type: String, enum: [...rejectionReasons, null], default: null },
      source: { type: String, enum: ['api', 'admin', null], default: null },
      tries: { type: Number, required: true },
      last_attempt_at: { type: Date, required: true },
    },
    { collection: 'rejected_attempts', versionKey: false },
  );
  rejectedAttemptSchema.index({ license_key: 1, identifier_key: 1 }, { unique: true });
  // Spec 2.5: rows untouched for 90 days are pruned by a scheduled task.
  rejectedAttemptSchema.index({ last_attempt_at: 1 });

  const taskRunSchema = new Schema<TaskRunDocument>(
    {
      _id: { type: String, enum: taskNames, required: true },
      ran_at: { type: Date, required: true },
      trigger: { type: String, enum: ['scheduled', 'on-demand'], required: true },
      affected: { type: Number, default: null },
      error: { type: String, default: null },
    },
    { collection: 'task_runs', versionKey: false },
  );

  return {
    Plan: connection.model<PlanDocument>('Plan', planSchema),
    License: connection.model<LicenseDocument>('License', licenseSchema),
    RejectedAttempt: connection.model<RejectedAttemptDocument>(
      'RejectedAttempt',
      rejectedAttemptSchema,
    ),
    TaskRun: connection.model<TaskRunDocument>('TaskRun', taskRunSchema),
  };
}
