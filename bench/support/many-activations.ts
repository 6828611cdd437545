import { randomBytes } from 'node:crypto';
import type { Collection } from 'mongodb';
import type { ActivationType } from '../../libs/contracts/index.js';
import { identifierKey } from '../../libs/identifier/index.js';
import type { LicenseDocument } from '../../services/license/models.js';
import { countStoredActivations } from '../../services/license/mongo-stores.js';
import type { ActivationRecord } from '../../services/license/records.js';

export interface ManyActivations {
  licenseKey: string;
  /** The activations stored, oldest first, as the document holds them. */
  activations: ActivationRecord[];
  /** What `countStoredActivations` answered once the license was in place. */
  counted: number;
}

/**
 * An active license with no activation limit holding `count` activations, put in place in one
 * insert (thousands of claims would take the test database minutes): the fields
 * `MongoLicenseStore.issue` writes, in its order, with the activations and without their counts,
 * as a license stored before the counts existed; then counted as the license service counts such
 * licenses when it starts. Activation n (from 1) is `identifier(n)`, already normalised for
 * `activationType`, activated `n - 1` seconds after `firstActivatedAt`.
 */
export async function storeManyActivations(
  licenses: Collection<LicenseDocument>,
  options: {
    productId: number;
    planId: number;
    activationType: ActivationType;
    count: number;
    identifier: (n: number) => string;
    firstActivatedAt: Date;
  },
): Promise<ManyActivations> {
  const activations = Array.from({ length: options.count }, (_, i): ActivationRecord => {
    const identifier = options.identifier(i + 1);
    return {
      identifier,
      identifier_key: identifierKey(identifier),
      name: null,
      ip: '203.0.113.7',
      activated_at: new Date(options.firstActivatedAt.getTime() + i * 1000),
      last_checkout_at: null,
      lease_expires_at: null,
      exempt: false,
    };
  });
  const licenseKey = randomBytes(16).toString('hex');
  const now = new Date();
  const doc: Omit<
    LicenseDocument,
    '_id' | 'activations_used' | 'exempt_used' | 'activations_bytes'
  > = {
    license_key: licenseKey,
    product_id: options.productId,
    plan_id: options.planId,
    status: 'active',
    expires_at: null,
    auto_renew: false,
    next_payment_at: null,
    activation_type: options.activationType,
    activation_limit: 0,
    lease_seconds: null,
    exempt_identifiers: [],
    exempt_limit: 3,
    activations,
    last_check_at: null,
    last_check_ip: null,
    check_count: 0,
    pending_plan_id: null,
    metadata: [],
    created_at: now,
    updated_at: now,
  };
  await licenses.insertOne(doc as LicenseDocument);
  return { licenseKey, activations, counted: await countStoredActivations(licenses) };
}
