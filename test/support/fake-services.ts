import {
  domainEventData,
  type DomainEvent,
  type DomainEventData,
  type DomainEventType,
  type LicenseCoverage,
  type LicenseCoverageRequest,
  type LicenseStatus,
} from '../../libs/contracts/index.js';
import { unknownKeyCoverageView } from '../../services/license/views.js';
import type { Answers } from '../../bench/support/fake-transport.js';

/**
 * Fakes of what the services' handlers reach over the transport, for fast handler tests; the
 * transport itself is bench/support/fake-transport.ts.
 */

/** A clock that stands still until a test moves it. */
export interface TestClock {
  (): Date;
  advance(ms: number): void;
}

export function fixedClock(start: string): TestClock {
  let now = Date.parse(start);
  const clock = (() => new Date(now)) as TestClock;
  clock.advance = (ms) => {
    now += ms;
  };
  return clock;
}

/**
 * The data of the recorded domain events of one type, in order, each checked against its schema:
 * parsing strips what the schema does not name, so equal means nothing more and nothing less.
 */
export function publishedData<T extends DomainEventType>(
  events: readonly DomainEvent[],
  type: T,
): Array<DomainEventData<T>> {
  return events
    .filter((event) => event.type === type)
    .map((event) => {
      const data = domainEventData[type].parse(event.data) as DomainEventData<T>;
      expect(data).toEqual(event.data);
      return data;
    });
}

/** A license as the fake license service knows it. */
export interface FakeLicense {
  key: string;
  /** The product, or the bundle, it was bought for. */
  product_id: number;
  /** The products of that bundle (spec 2.2: one level). */
  bundle_items?: number[];
  plan_id: number;
  /** The reported status: an active license past its expiry date is `expired` (spec 3.1). */
  status?: LicenseStatus;
  expires_at?: string | null;
  auto_renew?: boolean;
  next_payment_at?: string | null;
  /** Coverage's `updates_until`: the expiry of a kept expired license (expiry strategies). */
  updates_until?: string | null;
  /** Identifiers activated on it, as the license service matches them after normalisation. */
  activated?: string[];
  /** Its live entitlements, as the license service reports them. */
  entitlements?: string[];
}

/**
 * `license.coverage` as the license service answers it: whether the key covers the product
 * directly or through its bundle, and the license's plan only for a key covering the product
 * directly (a bundle key sees all-plans files, spec 4.4 rule 5).
 */
export function fakeLicenseService(licenses: readonly FakeLicense[]): Answers {
  const coverage = async ({
    license_key,
    product_id,
    identifier,
  }: LicenseCoverageRequest): Promise<LicenseCoverage> => {
    const license = licenses.find((l) => l.key === license_key);
    if (!license) return unknownKeyCoverageView(identifier !== null);
    const direct = license.product_id === product_id;
    const covers = direct || (license.bundle_items ?? []).includes(product_id);
    return {
      found: true,
      covers,
      status: license.status ?? 'active',
      plan_id: covers && direct ? license.plan_id : null,
      expires_at: license.expires_at ?? null,
      auto_renew: license.auto_renew ?? false,
      next_payment_at: license.next_payment_at ?? null,
      in_grace: false,
      grace_ends_at: null,
      updates_until: license.updates_until ?? null,
      identifier,
      identifier_activated:
        identifier === null ? null : (license.activated ?? []).includes(identifier),
      entitlements: license.entitlements ?? [],
    };
  };
  return { 'license.coverage': coverage };
}
