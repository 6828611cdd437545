import type { LicenseStatus } from '../../libs/contracts/index.js';
import type { BuyerMail, MailMoment } from '../../services/stores/applying/buyer-mail.js';
import type {
  NewStoreLicense,
  StoreLicense,
  StoreLicenses,
  StoreReference,
} from '../../services/stores/applying/store-licenses.js';

export interface FakeLicense {
  license_key: string;
  status: LicenseStatus;
  plan_id: number;
  expires_at: Date | null;
  product_id: number;
  auto_renew: boolean;
  next_payment_at: Date | null;
  store: StoreReference;
}

/**
 * The license service as the stores service sees it, in memory: one license per store order or
 * subscription, each call recorded. `failNext` makes the next calls throw, as a license service
 * that does not answer would.
 */
export function fakeStoreLicenses() {
  const licenses = new Map<string, FakeLicense>();
  const calls: Array<{ method: string; request: unknown }> = [];
  let failures = 0;
  let seq = 0;
  const iso = (date: Date | null) => date && date.toISOString();
  const view = (license: FakeLicense): StoreLicense => ({
    license_key: license.license_key,
    status: license.status,
    plan_id: license.plan_id,
    expires_at: license.expires_at,
    auto_renew: license.auto_renew,
    next_payment_at: license.next_payment_at,
    // As the license service answers them: dates as timestamps.
    fields: {
      ...license,
      expires_at: iso(license.expires_at),
      next_payment_at: iso(license.next_payment_at),
      store: { ...license.store },
    },
  });
  const sameStore = (a: StoreReference, b: StoreReference) =>
    a.connection_id === b.connection_id &&
    ((a.subscription_id !== null && a.subscription_id === b.subscription_id) ||
      (a.order_id !== null && a.order_id === b.order_id));
  const existing = (key: string) => {
    const found = licenses.get(key);
    if (!found) throw new Error(`no license ${key}`);
    return found;
  };
  const call = (method: string, request: unknown) => {
    calls.push({ method, request });
    if (failures > 0) {
      failures--;
      throw new Error('the license service did not answer');
    }
  };

  const port: StoreLicenses = {
    async createStoreLicense(license: NewStoreLicense) {
      call('createStoreLicense', license);
      const made = [...licenses.values()].find((l) => sameStore(l.store, license.store));
      if (made) return { created: false, license: view(made) };
      const record: FakeLicense = {
        license_key: `STORE-${++seq}`,
        status: 'active',
        plan_id: license.plan_id,
        product_id: license.product_id,
        expires_at: license.expires_at,
        auto_renew: license.auto_renew,
        next_payment_at: license.next_payment_at,
        store: license.store,
      };
      licenses.set(record.license_key, record);
      return { created: true, license: view(record) };
    },
    async findStoreLicense(store) {
      call('findStoreLicense', store);
      const made = [...licenses.values()].find((l) => sameStore(l.store, store));
      return made ? view(made) : null;
    },
    async renew(change) {
      call('renew', change);
      const license = existing(change.license_key);
      Object.assign(license, {
        expires_at: change.expires_at,
        next_payment_at: change.next_payment_at,
      });
      return view(license);
    },
    async update({ license_key, ...change }) {
      call('update', { license_key, ...change });
      const license = existing(license_key);
      for (const [field, value] of Object.entries(change)) {
        if (value !== undefined) Object.assign(license, { [field]: value });
      }
      return view(license);
    },
    async changePlan(change) {
      call('changePlan', change);
      const license = existing(change.license_key);
      license.plan_id = change.plan_id;
      return view(license);
    },
  };
  return {
    port,
    calls,
    all: () => [...licenses.values()],
    get: (key: string) => licenses.get(key),
    /** As an admin would in the console: a change not made through the store. */
    setStatus: (key: string, status: LicenseStatus) => {
      existing(key).status = status;
    },
    failNext(times: number) {
      failures = times;
    },
    /** Calls that changed something (finds left out), by method. */
    changes: () => calls.filter((c) => c.method !== 'findStoreLicense').map((c) => c.method),
  };
}

/** A buyer mail that records what it was asked to send. */
export function fakeBuyerMail() {
  const sent: Array<{ moment: MailMoment; license_key: string }> = [];
  const mail: BuyerMail = {
    async send(moment, license) {
      sent.push({ moment, license_key: license.license_key });
      return { outcome: 'sent', detail: null };
    },
  };
  return { mail, sent };
}
