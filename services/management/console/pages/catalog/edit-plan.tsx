import { useState } from 'preact/hooks';
import type { Plan } from '../../../../../libs/contracts/index.js';
import { Field } from '../../../../../libs/web/ui/components.js';
import { useApi } from '../../shared/api/admin-api.js';
import { Input } from '../../shared/components/fields.js';
import { termsBody, termsDraftOf, type PlanTermsDraft } from './plan-terms.js';
import { PLAN_WORDS } from '../../shared/words/words.js';
import { TermsFields, termsReady } from './terms-fields.js';
import { UsageFields } from './usage-fields.js';
import { isMaxUses, usageBody, usageDraftOf, type PlanUsageDraft } from './usage-terms.js';
import { ExpiryFields, expiryReady } from './expiry-fields.js';
import { expiryBody, expiryDraftOf, type ExpiryTermsDraft } from './expiry-terms.js';
import { EditPanel } from '../../shared/components/edit-panel.js';

/**
 * A plan's name, lease and exempt settings changed (PATCH), in the edit panel the webhook
 * endpoint's has too.
 */
export function EditPlan({
  plan,
  onSaved,
  onCancel,
}: {
  plan: Plan;
  onSaved: (plan: Plan) => void;
  onCancel: () => void;
}) {
  const api = useApi();
  const [name, setName] = useState(plan.name);
  const [terms, setTerms] = useState<PlanTermsDraft>(() => termsDraftOf(plan));
  const [usage, setUsage] = useState<PlanUsageDraft>(() => usageDraftOf(plan));
  const [expiry, setExpiry] = useState<ExpiryTermsDraft>(() => expiryDraftOf(plan));
  const save = async () => {
    // Every field, so the request is never an empty PATCH, which the API refuses.
    const saved = await api.call('updatePlan', {
      params: { id: plan.id },
      body: {
        name: name.trim(),
        ...termsBody(terms),
        ...usageBody(usage),
        ...expiryBody(expiry),
      },
    });
    onSaved(saved);
  };
  return (
    <EditPanel
      label={`Edit plan ${plan.name}`}
      first="name"
      ready={
        name.trim() !== '' && termsReady(terms) && isMaxUses(usage.maxUses) && expiryReady(expiry)
      }
      save={save}
      onCancel={onCancel}
    >
      <Field label="Name">
        <Input name="name" required maxLength={255} value={name} onValue={setName} />
      </Field>
      <TermsFields draft={terms} onDraft={setTerms} />
      <UsageFields draft={usage} onDraft={setUsage} />
      <ExpiryFields draft={expiry} onDraft={setExpiry} />
      <p class="hint">
        {PLAN_WORDS.takenWhen} {PLAN_WORDS.fixed}
      </p>
    </EditPanel>
  );
}
