import { useState } from 'preact/hooks';
import type { ActivationType, Plan } from '../../../../../libs/contracts/index.js';
import { Field } from '../../../../../libs/web/ui/components.js';
import { useApi } from '../../shared/api/admin-api.js';
import { Input, LimitInput, WordSelect, isLimit } from '../../shared/components/fields.js';
import { useAction } from '../../shared/hooks/hooks.js';
import { Outcome } from '../../shared/components/notices.js';
import { NEW_PLAN_TERMS, termsBody, type PlanTermsDraft } from './plan-terms.js';
import { ACTIVATION_TYPE_WORDS, PLAN_WORDS } from '../../shared/words/words.js';
import { useCan } from '../../shared/hooks/permissions.js';
import { TermsFields, termsReady } from './terms-fields.js';
import { UsageFields } from './usage-fields.js';
import { NEW_PLAN_USAGE, isMaxUses, usageBody, type PlanUsageDraft } from './usage-terms.js';
import { ExpiryFields, expiryReady } from './expiry-fields.js';
import { NEW_EXPIRY_TERMS, expiryBody, type ExpiryTermsDraft } from './expiry-terms.js';

/** A new plan: its name, activation type and limit, which stay as created, and its terms. */
export function NewPlanForm({ onSaved }: { onSaved: (plan: Plan) => void }) {
  const api = useApi();
  const can = useCan();
  const [name, setName] = useState('');
  const [type, setType] = useState<ActivationType>('domain');
  const [limit, setLimit] = useState('1');
  const [terms, setTerms] = useState<PlanTermsDraft>(NEW_PLAN_TERMS);
  const [usage, setUsage] = useState<PlanUsageDraft>(NEW_PLAN_USAGE);
  const [expiry, setExpiry] = useState<ExpiryTermsDraft>(NEW_EXPIRY_TERMS);
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      const plan = await api.call('createPlan', {
        body: {
          name: name.trim(),
          activation_type: type,
          activation_limit: Number(limit),
          ...termsBody(terms),
          ...usageBody(usage),
          ...expiryBody(expiry),
        },
      });
      setName('');
      setTerms(NEW_PLAN_TERMS);
      setUsage(NEW_PLAN_USAGE);
      setExpiry(NEW_EXPIRY_TERMS);
      onSaved(plan);
      return `Created ${plan.name}.`;
    });
  };
  if (!can('createPlan')) return null;
  return (
    <form method="post" onSubmit={submit} class="panel" aria-label="New plan">
      <div class="row">
        <Field label="Name">
          <Input name="name" required maxLength={255} value={name} onValue={setName} />
        </Field>
        <Field label="Activation type">
          <WordSelect
            name="activation_type"
            words={ACTIVATION_TYPE_WORDS}
            value={type}
            onChange={setType}
          />
        </Field>
        <Field label="Activation limit" hint="0 means unlimited.">
          <LimitInput value={limit} onValue={setLimit} />
        </Field>
      </div>
      <TermsFields draft={terms} onDraft={setTerms} />
      <UsageFields draft={usage} onDraft={setUsage} />
      <ExpiryFields draft={expiry} onDraft={setExpiry} />
      <p class="hint">{PLAN_WORDS.takenWhen}</p>
      <button
        type="submit"
        disabled={
          action.busy ||
          name.trim() === '' ||
          !isLimit(limit) ||
          !termsReady(terms) ||
          !isMaxUses(usage.maxUses) ||
          !expiryReady(expiry)
        }
      >
        Create plan
      </button>
      <Outcome action={action} />
    </form>
  );
}
