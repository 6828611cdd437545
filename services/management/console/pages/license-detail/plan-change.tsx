import { useState } from 'preact/hooks';
import type { LicenseDetail } from '../../../../../libs/contracts/index.js';
import { ApiError } from '../../../../../libs/web/ui/api.js';
import { Field } from '../../../../../libs/web/ui/components.js';
import { useApi } from '../../shared/api/admin-api.js';
import { ConfirmDialog } from '../../shared/components/controls.js';
import { useProductsAndPlans } from '../../shared/hooks/products-and-plans.js';
import { Radios } from '../../shared/components/fields.js';
import { useAction } from '../../shared/hooks/hooks.js';
import { Outcome } from '../../shared/components/notices.js';
import {
  planChangeConsequences,
  planChangeEffectsOf,
  planChoiceWords,
  type PlanChangeEffects,
} from '../../shared/words/license-words.js';
import { useCan } from '../../shared/hooks/permissions.js';
import type { Change } from './change.js';

/**
 * Spec 3.3: a plan change now, or at the next checkout renewal. One that would leave activations
 * over the new limit or change the activation type is refused until confirmed
 * (CONFIRMATION_REQUIRED); the refusal says what it would do, and a dialog asks.
 */
export function PlanChange({ license, onChange }: { license: LicenseDetail; onChange: Change }) {
  const api = useApi();
  const can = useCan();
  const { plans, planName } = useProductsAndPlans();
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
