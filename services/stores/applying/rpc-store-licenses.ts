import { Customer, type LicenseDetail } from '../../../libs/contracts/index.js';
import type { Transport } from '../../../libs/transport/index.js';
import { displayName } from '../display-names.js';
import type { StoreCustomer } from '../store-events.js';
import type { StoreLicense, StoreLicenses } from './store-licenses.js';

const dateOf = (timestamp: string | null) => (timestamp === null ? null : new Date(timestamp));

/** The license as the stores service keeps deciding on it, and its fields for the audit log. */
function storeLicenseOf(license: LicenseDetail): StoreLicense {
  // Lists a store's change never touches, which would only make the event longer.
  const { activations: _a, rejected_attempts: _r, entitlements: _e, ...fields } = license;
  return {
    license_key: license.license_key,
    status: license.status,
    plan_id: license.plan_id,
    expires_at: dateOf(license.expires_at),
    auto_renew: license.auto_renew,
    next_payment_at: dateOf(license.next_payment_at),
    fields,
  };
}

const iso = (date: Date | null) => (date === null ? null : date.toISOString());

/**
 * The buyer as the license keeps its customer, the name as `displayName` keeps it (a name read
 * from a store's API too). A store's customer without a valid address is left off the license
 * (the sale still makes it), never a reason to refuse the sale; a valid address is kept whatever
 * the name holds.
 */
function licenseCustomer(customer: StoreCustomer | null) {
  if (!customer?.email) return null;
  const named = Customer.safeParse({ email: customer.email, name: displayName(customer.name) });
  if (named.success) return named.data;
  const unnamed = Customer.safeParse({ email: customer.email, name: null });
  return unnamed.success ? unnamed.data : null;
}

/**
 * The license service's RPC methods as the stores service changes licenses through them
 * (docs/stores.md): each change by the license service's own rules, its events and webhooks
 * sent as for an admin's change. A plan change is made now and confirmed: activations over a
 * lower limit stay (spec 3.3).
 */
export function rpcStoreLicenses(transport: Pick<Transport, 'call'>): StoreLicenses {
  return {
    async createStoreLicense(license) {
      const answer = await transport.call('license.createStoreLicense', {
        product_id: license.product_id,
        plan_id: license.plan_id,
        expires_at: iso(license.expires_at),
        auto_renew: license.auto_renew,
        next_payment_at: iso(license.next_payment_at),
        customer: licenseCustomer(license.customer),
        store: license.store,
      });
      return { created: answer.created, license: storeLicenseOf(answer.license) };
    },
    async findStoreLicense(store) {
      const { license } = await transport.call('license.findStoreLicense', {
        connection_id: store.connection_id,
        order_id: store.order_id,
        subscription_id: store.subscription_id,
      });
      return license === null ? null : storeLicenseOf(license);
    },
    async renew(change) {
      const license = await transport.call('license.renewLicense', {
        license_key: change.license_key,
        expires_at: change.expires_at.toISOString(),
        source: change.source,
        next_payment_at: iso(change.next_payment_at),
      });
      return storeLicenseOf(license);
    },
    async update({ license_key, status, auto_renew, next_payment_at, expires_at }) {
      const license = await transport.call('license.updateLicense', {
        license_key,
        ...(status === undefined ? {} : { status }),
        ...(auto_renew === undefined ? {} : { auto_renew }),
        ...(next_payment_at === undefined ? {} : { next_payment_at: iso(next_payment_at) }),
        ...(expires_at === undefined ? {} : { expires_at: expires_at.toISOString() }),
      });
      return storeLicenseOf(license);
    },
    async changePlan({ license_key, plan_id }) {
      const license = await transport.call('license.changePlan', {
        license_key,
        plan_id,
        when: 'now',
        confirm: true,
      });
      return storeLicenseOf(license);
    },
  };
}
