import { useState } from 'preact/hooks';
import type { LicenseDetail } from '../../../../../libs/contracts/index.js';
import { Field } from '../../../../../libs/web/ui/components.js';
import { STATUS_WORDS } from '../../../../../libs/web/ui/words.js';
import { useApi } from '../../shared/api/admin-api.js';
import { Input, Radios, localInputToIso } from '../../shared/components/fields.js';
import { useAction } from '../../shared/hooks/hooks.js';
import { Outcome } from '../../shared/components/notices.js';
import { notRenewable } from '../../shared/words/words.js';
import { useCan } from '../../shared/hooks/permissions.js';
import type { Change } from './change.js';

/**
 * Spec 3.3: a renewal through checkout (the Renew button) or the payment gateway; a revoked or
 * cancelled license cannot be renewed, which is said instead of the form.
 */
export function Renewal({ license, onChange }: { license: LicenseDetail; onChange: Change }) {
  if (license.status === 'revoked' || license.status === 'cancelled') {
    return (
      <section aria-labelledby="renewal-heading" class="panel">
        <h2 id="renewal-heading">Renew</h2>
        <p>{notRenewable(license.status)}</p>
      </section>
    );
  }
  return <RenewalForm license={license} onChange={onChange} />;
}

function RenewalForm({ license, onChange }: { license: LicenseDetail; onChange: Change }) {
  const api = useApi();
  const can = useCan();
  const [expires, setExpires] = useState('');
  const [nextPayment, setNextPayment] = useState('');
  const [source, setSource] = useState<'checkout' | 'gateway'>('checkout');
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      const expiresAt = localInputToIso(expires);
      if (expiresAt === null) throw new Error('Give the new expiry date and time.');
      const nextPaymentAt = localInputToIso(nextPayment);
      const changed = await api.call('renewLicense', {
        params: { key: license.license_key },
        body: {
          expires_at: expiresAt,
          source,
          ...(nextPaymentAt === null ? {} : { next_payment_at: nextPaymentAt }),
        },
      });
      onChange(changed);
      setExpires('');
      setNextPayment('');
      return `Renewed: the license is ${STATUS_WORDS[changed.status].toLowerCase()}.`;
    });
  };
  if (!can('renewLicense')) return null;
  return (
    <section aria-labelledby="renewal-heading" class="panel">
      <h2 id="renewal-heading">Renew</h2>
      <form method="post" onSubmit={submit}>
        <div class="row">
          <Field label="New expiry" hint="Your time zone; must be ahead of now.">
            <Input
              type="datetime-local"
              name="expires_at"
              required
              value={expires}
              onValue={setExpires}
            />
          </Field>
          <Field label="Next payment" hint="Optional.">
            <Input
              type="datetime-local"
              name="next_payment_at"
              value={nextPayment}
              onValue={setNextPayment}
            />
          </Field>
        </div>
        <Radios
          legend="Through"
          name="source"
          value={source}
          onChange={setSource}
          choices={{
            checkout:
              "Checkout (the Renew button): applies a pending plan change; limit, type, lease and exempt settings reset to the plan's",
            gateway: 'Payment gateway (automatic renewal): plan, limit and type unchanged',
          }}
        />
        <button type="submit" disabled={action.busy || expires === ''}>
          Renew
        </button>
      </form>
      <Outcome action={action} />
    </section>
  );
}
