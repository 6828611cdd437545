import type { LicenseStatus } from '../../../libs/contracts/index.js';
import type { StoreCustomer } from '../store-events.js';

/** Where a store-made license came from: its connection, order, subscription and customer. */
export interface StoreReference {
  readonly connection_id: number;
  readonly order_id: string | null;
  readonly subscription_id: string | null;
  readonly customer_id: string | null;
}

/** A license as the stores service needs to know it. */
export interface StoreLicense {
  readonly license_key: string;
  readonly status: LicenseStatus;
  readonly plan_id: number;
  readonly expires_at: Date | null;
  readonly auto_renew: boolean;
  readonly next_payment_at: Date | null;
  /**
   * Its fields as the license service answered them (its activations and other lists aside): what
   * the audit log is told of a change, before and after (change-reports.ts).
   */
  readonly fields: Readonly<Record<string, unknown>>;
}

export interface NewStoreLicense {
  readonly product_id: number;
  readonly plan_id: number;
  readonly expires_at: Date | null;
  readonly auto_renew: boolean;
  readonly next_payment_at: Date | null;
  readonly customer: StoreCustomer | null;
  readonly store: StoreReference;
}

/**
 * The license service as the stores service changes licenses through it, each change made by
 * the license service's usual rules (spec 3). Its adapter calls `license.createStoreLicense`,
 * `license.findStoreLicense`, `license.renewLicense`, `license.updateLicense` and
 * `license.changePlan`.
 */
export interface StoreLicenses {
  /**
   * The license of the store's order or subscription: made once, so a call made again after a
   * failure answers the license the first made (`created: false`).
   */
  createStoreLicense(
    license: NewStoreLicense,
  ): Promise<{ created: boolean; license: StoreLicense }>;
  /** The license made for the store's order or subscription, or null when none was. */
  findStoreLicense(store: StoreReference): Promise<StoreLicense | null>;
  renew(change: {
    license_key: string;
    expires_at: Date;
    source: 'gateway' | 'checkout';
    next_payment_at: Date | null;
  }): Promise<StoreLicense>;
  update(change: {
    license_key: string;
    status?: LicenseStatus;
    auto_renew?: boolean;
    next_payment_at?: Date | null;
    expires_at?: Date;
  }): Promise<StoreLicense>;
  /** Moves the license to the plan now, keeping its key. */
  changePlan(change: { license_key: string; plan_id: number }): Promise<StoreLicense>;
}

/**
 * Licenses that cannot be reached: each call fails, so events stay pending and are retried on
 * the applier's schedule, then `failed` for an admin to apply again.
 */
export function unreachableStoreLicenses(reason: string): StoreLicenses {
  const fail = async (): Promise<never> => {
    throw new Error(reason);
  };
  return {
    createStoreLicense: fail,
    findStoreLicense: fail,
    renew: fail,
    update: fail,
    changePlan: fail,
  };
}
