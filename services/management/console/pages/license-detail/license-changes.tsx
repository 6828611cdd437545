/** The license detail's changes (spec 3.3): limit, status and expiry, a plan change, a renewal. */
import { useEffect, useState } from 'preact/hooks';
import type { LicenseDetail, LicenseStatus } from '../../../../../libs/contracts/index.js';
import { ApiError } from '../../../../../libs/web/ui/api.js';
import { Field } from '../../../../../libs/web/ui/components.js';
import { STATUS_WORDS } from '../../../../../libs/web/ui/words.js';
import { useApi, type Body } from '../../shared/api/admin-api.js';
import { ConfirmDialog } from '../../shared/components/controls.js';
import { useDirectory } from '../../shared/hooks/directory.js';
import {
  Input,
  LimitInput,
  Radios,
  WordSelect,
  isLimit,
  isoToLocalInput,
  localInputToIso,
} from '../../shared/components/fields.js';
import { useAction } from '../../shared/hooks/hooks.js';
import { Outcome } from '../../shared/components/notices.js';
import {
  planChangeConsequences,
  planChangeEffectsOf,
  planChoiceWords,
  type PlanChangeEffects,
} from '../../shared/words/license-words.js';
import { LIMIT_PROBLEM, limitWords, notRenewable } from '../../shared/words/words.js';
import { useCan } from '../../shared/hooks/permissions.js';

/** A change's answer: the license as it now is, shown in place of the one loaded. */
export type Change = (license: LicenseDetail) => void;

/** The changes a PATCH makes (spec 3.3): limit, status, expiry, each a form of its own. */
export function Settings({ license, onChange }: { license: LicenseDetail; onChange: Change }) {
  const api = useApi();
  const can = useCan();
  const [limit, setLimit] = useState(String(license.activation_limit));
  const [status, setStatus] = useState<LicenseStatus>(license.status);
  const [expires, setExpires] = useState(isoToLocalInput(license.expires_at));
  // The license changes under these forms too (a plan change resets the limit): follow it.
  useEffect(() => setLimit(String(license.activation_limit)), [license.activation_limit]);
  useEffect(() => setStatus(license.status), [license.status]);
  useEffect(() => setExpires(isoToLocalInput(license.expires_at)), [license.expires_at]);
  const action = useAction();
  const patch = (body: Body<'updateLicense'>, done: (changed: LicenseDetail) => string) =>
    action.run(async () => {
      const changed = await api.call('updateLicense', {
        params: { key: license.license_key },
        body,
      });
      onChange(changed);
      return done(changed);
    });

  if (!can('updateLicense')) return null;
  return (
    <section aria-labelledby="settings-heading" class="panel">
      <h2 id="settings-heading">Limit, status and expiry</h2>
      <div class="forms">
        <form
          method="post"
          onSubmit={(event) => {
            event.preventDefault();
            void patch(
              { activation_limit: Number(limit) },
              (changed) => `The activation limit is now ${limitWords(changed.activation_limit)}.`,
            );
          }}
        >
          <Field
            label="Activation limit"
            hint="0 means unlimited. Takes effect at once."
            error={isLimit(limit) ? null : LIMIT_PROBLEM}
          >
            <LimitInput
              value={limit}
              onValue={(value) => {
                // What was said of the last change is not about this value.
                action.clear();
                setLimit(value);
              }}
            />
          </Field>
          <button type="submit" disabled={action.busy || !isLimit(limit)}>
            Change limit
          </button>
        </form>
        <form
          method="post"
          onSubmit={(event) => {
            event.preventDefault();
            void patch(
              { status },
              (changed) => `The status is now ${STATUS_WORDS[changed.status]}.`,
            );
          }}
        >
          <Field label="Status">
            <WordSelect name="status" words={STATUS_WORDS} value={status} onChange={setStatus} />
          </Field>
          <button type="submit" disabled={action.busy}>
            Change status
          </button>
        </form>
        <form
          method="post"
          onSubmit={(event) => {
            event.preventDefault();
            void patch({ expires_at: localInputToIso(expires) }, (changed) =>
              changed.expires_at === null
                ? 'The license no longer expires.'
                : 'The expiry date is changed.',
            );
          }}
        >
          <Field label="Expires" hint="Your time zone; empty: does not expire.">
            <Input type="datetime-local" name="expires_at" value={expires} onValue={setExpires} />
          </Field>
          <button type="submit" disabled={action.busy}>
            Change expiry
          </button>
        </form>
      </div>
      <Outcome action={action} />
    </section>
  );
}

/**
 * Spec 3.3: a plan change now, or at the next checkout renewal. One that would leave activations
 * over the new limit or change the activation type is refused until confirmed
 * (CONFIRMATION_REQUIRED); the refusal says what it would do, and a dialog asks.
 */
export function PlanChange({ license, onChange }: { license: LicenseDetail; onChange: Change }) {
  const api = useApi();
  const can = useCan();
  const { plans, planName } = useDirectory();
  const [planId, setPlanId] = useState('');
  const [when, setWhen] = useState<'now' | 'renewal'>('now');
  const [asked, setAsked] = useState<PlanChangeEffects | null>(null);
  const action = useAction();
  const change = (confirm: boolean) =>
    action.run(async () => {
      setAsked(null);
      let changed: LicenseDetail;
      try {
        changed = await api.call('changePlan', {
          params: { key: license.license_key },
          body: { plan_id: Number(planId), when, confirm },
        });
      } catch (error) {
        const effects =
          !confirm && error instanceof ApiError && error.code === 'CONFIRMATION_REQUIRED'
            ? planChangeEffectsOf(error.details)
            : null;
        if (effects === null) throw error;
        setAsked(effects);
        return null;
      }
      onChange(changed);
      setPlanId('');
      return when === 'now'
        ? `The license is now on ${changed.plan ?? planName(changed.plan_id)}, with its limit, type, lease and exempt settings.`
        : `${planName(Number(planId))} will apply at the next checkout renewal.`;
    });
  if (!can('changePlan')) return null;
  return (
    <section aria-labelledby="plan-heading" class="panel">
      <h2 id="plan-heading">Change plan</h2>
      <form
        method="post"
        onSubmit={(event) => {
          event.preventDefault();
          void change(false);
        }}
      >
        <Field label="New plan">
          <select
            name="plan_id"
            required
            value={planId}
            onChange={(event) => setPlanId(event.currentTarget.value)}
          >
            <option value="">Choose…</option>
            {plans.map((plan) => (
              <option key={plan.id} value={plan.id} disabled={plan.id === license.plan_id}>
                {planChoiceWords(plan)}
              </option>
            ))}
          </select>
        </Field>
        <Radios
          legend="When"
          name="when"
          value={when}
          onChange={setWhen}
          choices={{
            now: "Now: the limit, type, lease and exempt settings reset to the new plan's",
            renewal: 'At the next checkout renewal',
          }}
        />
        <button type="submit" disabled={action.busy || planId === ''}>
          Change plan
        </button>
      </form>
      <Outcome action={action} />
      {asked !== null && (
        <ConfirmDialog
          title={`Move this license to ${asked.plan}?`}
          confirmLabel="Change plan"
          onConfirm={() => void change(true)}
          onCancel={() => setAsked(null)}
        >
          {when === 'renewal' && <p>At the next checkout renewal, as the license is now:</p>}
          <ul>
            {planChangeConsequences(asked).map((sentence) => (
              <li key={sentence}>{sentence}</li>
            ))}
          </ul>
        </ConfirmDialog>
      )}
    </section>
  );
}

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
