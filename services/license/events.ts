import type {
  DomainEventData,
  DomainEventType,
  ErrorCode,
  LicenseStatus,
} from '../../libs/contracts/index.js';
import type { Logger } from '../../libs/logging/index.js';
import type { PublishDomainEvent } from '../../libs/transport/domain-events.js';
import type { LicenseChangeSet } from './lifecycle/lifecycle-rules.js';
import type { LapsedRelease } from './activations/activation-store.js';
import type { ActivationRecord, ActivationSource, LicenseRecord, TrialRecord } from './records.js';

/** Why an activation was removed. */
export type ActivationRemovalSource = 'deactivate' | 'admin' | 'lease';

/**
 * The license service's domain events: what happened to licenses and activations, said by the
 * handlers and the scheduled tasks once the write that made it happen has succeeded, and only
 * then. Each carries the license as written and the moment of the change (`at`).
 */
export interface LicenseEvents {
  /** An admin issued it (spec 2.1). */
  licenseCreated(event: { license: LicenseRecord; at: Date }): void;
  /** An admin changed its status, limit or expiry (spec 3.3); never called for no change. */
  licenseUpdated(event: { license: LicenseRecord; changes: LicenseChangeSet; at: Date }): void;
  /** The expiry task found it past its date and expired it (spec 3.1). */
  licenseExpired(event: { license: LicenseRecord; at: Date }): void;
  /** The expiry task found it past its date on a plan with grace days (expiry strategies). */
  licenseGraceStarted(event: { license: LicenseRecord; graceEndsAt: Date; at: Date }): void;
  /** A renewal moved its expiry (spec 3.3). */
  licenseRenewed(event: { license: LicenseRecord; previousExpiresAt: Date | null; at: Date }): void;
  /** It moved to another plan: a change applied now, or by the renewal that applied it (3.3). */
  planChanged(event: { license: LicenseRecord; previousPlanId: number; at: Date }): void;
  /** A new activation took its place on the license (spec 3.2). */
  activationCreated(event: {
    license: LicenseRecord;
    activation: ActivationRecord;
    source: ActivationSource;
    at: Date;
  }): void;
  /** An activation was removed from the license (spec 3.2, and lapsed leases). */
  activationDeleted(event: {
    license: LicenseRecord;
    activation: ActivationRecord;
    source: ActivationRemovalSource;
    at: Date;
  }): void;
  /** An activate refused and recorded as a rejected attempt (spec 2.5, 4.1). */
  activationRejected(event: {
    license: LicenseRecord;
    identifier: string;
    ip: string;
    reason: ErrorCode;
    at: Date;
  }): void;
  /** Its usage counter reached the cap, or refused for it: once per period (usage-handlers.ts). */
  usageLimitReached(event: {
    license: LicenseRecord;
    usage: Omit<DomainEventData<'usage.limit_reached'>, 'license_key' | 'product_id' | 'plan_id'>;
    at: Date;
  }): void;
  /** A trial license was issued with its identifier activated (docs/api-decisions.md, "Trials"). */
  trialStarted(event: { trial: TrialRecord; at: Date }): void;
  /** A paid license activated on a trial's identifier ended the trial. */
  trialConverted(event: { trial: TrialRecord; at: Date }): void;
}

const iso = (date: Date | null) => (date === null ? null : date.toISOString());

/** A license as its events describe it: as stored, so `status` is the stored one (spec 3.1). */
function licenseFacts(license: LicenseRecord): DomainEventData<'license.created'> {
  return {
    license_key: license.license_key,
    product_id: license.product_id,
    plan_id: license.plan_id,
    status: license.status,
    activation_limit: license.activation_limit,
    expires_at: iso(license.expires_at),
  };
}

/** An activation as its events describe it, on the license it belongs (or belonged) to. */
function activationFacts(license: LicenseRecord, activation: ActivationRecord) {
  return {
    license_key: license.license_key,
    product_id: license.product_id,
    identifier: activation.identifier,
    name: activation.name,
    ip: activation.ip,
    exempt: activation.exempt,
  };
}

/** A trial as its events describe it: never the buyer's address. */
function trialFacts(trial: TrialRecord): DomainEventData<'trial.started'> {
  return {
    license_key: trial.license_key,
    product_id: trial.product_id,
    plan_id: trial.plan_id,
    identifier: trial.identifier,
    started_at: trial.started_at.toISOString(),
    expires_at: trial.expires_at.toISOString(),
  };
}

/** What `license.updated` says was before: only the fields that changed. */
function previousValues(changes: LicenseChangeSet): DomainEventData<'license.updated'>['previous'] {
  const previous: {
    status?: LicenseStatus;
    activation_limit?: number;
    expires_at?: string | null;
  } = {};
  if (changes.previous.status !== undefined) previous.status = changes.previous.status;
  if (changes.previous.activation_limit !== undefined) {
    previous.activation_limit = changes.previous.activation_limit;
  }
  if (changes.previous.expires_at !== undefined) {
    previous.expires_at = iso(changes.previous.expires_at);
  }
  return previous;
}

/** The fields of an event's data its log line leaves out: the client's address and label. */
const UNLOGGED_FIELDS: ReadonlySet<string> = new Set(['ip', 'name']);

/**
 * The events as domain events (libs/contracts/events/domain-events.ts), each handed to `publish` and written
 * to the log, one line each, named as the event (the license key as its fingerprint, as in every
 * line: libs/logging).
 */
export function publishedEvents(publish: PublishDomainEvent, logger: Logger): LicenseEvents {
  const emit = <T extends DomainEventType>(type: T, data: DomainEventData<T>, at: Date) => {
    const event = publish(type, data, at);
    logger.info(
      {
        event: type,
        event_id: event.id,
        ...Object.fromEntries(
          Object.entries(data).filter(([field]) => !UNLOGGED_FIELDS.has(field)),
        ),
        at: event.timestamp,
      },
      type.replace(/[._]/g, ' '),
    );
  };
  return {
    licenseCreated: ({ license, at }) => emit('license.created', licenseFacts(license), at),
    licenseUpdated: ({ license, changes, at }) =>
      emit(
        'license.updated',
        { ...licenseFacts(license), changed: changes.changed, previous: previousValues(changes) },
        at,
      ),
    licenseExpired: ({ license, at }) => emit('license.expired', licenseFacts(license), at),
    licenseGraceStarted: ({ license, graceEndsAt, at }) =>
      emit(
        'license.grace_started',
        { ...licenseFacts(license), grace_ends_at: graceEndsAt.toISOString() },
        at,
      ),
    licenseRenewed: ({ license, previousExpiresAt, at }) =>
      emit(
        'license.renewed',
        { ...licenseFacts(license), previous_expires_at: iso(previousExpiresAt) },
        at,
      ),
    planChanged: ({ license, previousPlanId, at }) =>
      emit(
        'license.plan_changed',
        { ...licenseFacts(license), previous_plan_id: previousPlanId },
        at,
      ),
    activationCreated: ({ license, activation, source, at }) =>
      emit('activation.created', { ...activationFacts(license, activation), source }, at),
    activationDeleted: ({ license, activation, source, at }) =>
      emit('activation.deleted', { ...activationFacts(license, activation), source }, at),
    activationRejected: ({ license, identifier, ip, reason, at }) =>
      emit(
        'activation.rejected',
        {
          license_key: license.license_key,
          product_id: license.product_id,
          identifier,
          ip,
          reason,
        },
        at,
      ),
    usageLimitReached: ({ license, usage, at }) =>
      emit(
        'usage.limit_reached',
        {
          license_key: license.license_key,
          product_id: license.product_id,
          plan_id: license.plan_id,
          ...usage,
        },
        at,
      ),
    trialStarted: ({ trial, at }) => emit('trial.started', trialFacts(trial), at),
    trialConverted: ({ trial, at }) =>
      emit(
        'trial.converted',
        {
          ...trialFacts(trial),
          converted_license_key: trial.converted_license_key ?? '',
          converted_at: (trial.converted_at ?? at).toISOString(),
        },
        at,
      ),
  };
}

/** The removal of lapsed activations (docs/api-decisions.md, "Leases"), as events. */
export function announceLapsed(
  events: Pick<LicenseEvents, 'activationDeleted'>,
  lapsed: LapsedRelease | null,
  at: Date,
): void {
  if (!lapsed) return;
  for (const activation of lapsed.released) {
    events.activationDeleted({ license: lapsed.license, activation, source: 'lease', at });
  }
}
