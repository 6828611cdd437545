import type { LicenseDetail } from '../../../../../libs/contracts/index.js';
import { Time } from '../../../../../libs/web/ui/time.js';
import { useProductsAndPlans } from '../../shared/hooks/products-and-plans.js';
import { useNow } from '../../shared/hooks/hooks.js';
import { overLimitNote } from '../../shared/words/license-words.js';
import { CustomerFacts } from './customer.js';
import {
  ACTIVATION_TYPE_WORDS,
  StatusBadge,
  exemptSlotWords,
  lapsedNote,
  licenseLeaseWords,
  limitWords,
  usage,
} from '../../shared/words/words.js';
import { lapsed } from './activation-table.js';

/** What the license is and holds, as the API answers it. */
export function LicenseFacts({ license }: { license: LicenseDetail }) {
  const { productTitle, planName } = useProductsAndPlans();
  const now = useNow(license.activations.map((activation) => activation.lease_expires_at));
  const gone = license.activations.filter((activation) => lapsed(activation, now));
  const goneExempt = gone.filter((activation) => activation.exempt).length;
  return (
    <dl class="facts">
      <dt>License key</dt>
      <dd class="mono">{license.license_key}</dd>
      <dt>Status</dt>
      <dd>
        <StatusBadge status={license.status} />
      </dd>
      <CustomerFacts license={license} />
      <dt>Product</dt>
      <dd>{license.product ?? productTitle(license.product_id)}</dd>
      <dt>Plan</dt>
      <dd>{license.plan ?? planName(license.plan_id)}</dd>
      <dt>Activation type</dt>
      <dd>{ACTIVATION_TYPE_WORDS[license.activation_type]}</dd>
      <dt>Activation limit</dt>
      <dd>{limitWords(license.activation_limit)}</dd>
      <dt>Activations used</dt>
      <dd>
        {usage(license)}
        {overLimitNote(license)}
        {lapsedNote(gone.length - goneExempt)}
      </dd>
      <dt>Lease</dt>
      <dd>{licenseLeaseWords(license.lease_seconds)}</dd>
      <dt>Exempt activations</dt>
      <dd>
        {exemptSlotWords(license)}
        {lapsedNote(goneExempt)}
      </dd>
      <dt>Exempt identifiers</dt>
      <dd>
        {license.exempt_identifiers.length === 0 ? (
          <span class="muted">None</span>
        ) : (
          <ul class="plain">
            {license.exempt_identifiers.map((pattern) => (
              <li key={pattern} class="mono">
                {pattern}
              </li>
            ))}
          </ul>
        )}
      </dd>
      <dt>Expires</dt>
      <dd>
        <Time value={license.expires_at} empty="Does not expire" />
      </dd>
      <dt>Renews automatically</dt>
      <dd>{license.auto_renew ? 'Yes' : 'No'}</dd>
      <dt>Next payment</dt>
      <dd>
        <Time value={license.next_payment_at} empty="None" />
      </dd>
      <dt>Pending plan change</dt>
      <dd>
        {license.pending_plan === null ? (
          <span class="muted">None</span>
        ) : (
          <>
            {license.pending_plan.name ?? planName(license.pending_plan.id)}, at the next checkout
            renewal
          </>
        )}
      </dd>
      <dt>Last check</dt>
      <dd>
        <Time value={license.last_check_at} />
      </dd>
      <dt>Last check IP</dt>
      <dd class="mono">{license.last_check_ip ?? <span class="muted">none</span>}</dd>
      <dt>Check count</dt>
      <dd>{license.check_count}</dd>
      <dt>Issued</dt>
      <dd>
        <Time value={license.created_at} />
      </dd>
    </dl>
  );
}
