import { Field } from '../../../../../libs/web/ui/components.js';
import { MAX_EXEMPT_LIMIT, MAX_LEASE_SECONDS } from '../../../../../libs/contracts/bounds.js';
import { Input } from '../../shared/components/fields.js';
import { isExemptLimit, isLease, isTrialDays, type PlanTermsDraft } from './plan-terms.js';
import { PLAN_WORDS } from '../../shared/words/words.js';

/** The lease and exempt fields, the same in the new plan's form and an edit. */
export function TermsFields({
  draft,
  onDraft,
}: {
  draft: PlanTermsDraft;
  onDraft: (draft: PlanTermsDraft) => void;
}) {
  return (
    <>
      <Field label="Lease (seconds; empty for none)" hint={PLAN_WORDS.lease}>
        <Input
          type="number"
          name="lease_seconds"
          class="short"
          min={1}
          max={MAX_LEASE_SECONDS}
          step={1}
          value={draft.lease}
          onValue={(lease) => onDraft({ ...draft, lease })}
        />
      </Field>
      <Field label="Exempt identifiers (one pattern per line)" hint={PLAN_WORDS.exemptIdentifiers}>
        <textarea
          name="exempt_identifiers"
          rows={4}
          autocomplete="off"
          spellcheck={false}
          value={draft.exemptIdentifiers}
          onInput={(event) => onDraft({ ...draft, exemptIdentifiers: event.currentTarget.value })}
        />
      </Field>
      <Field label="Exempt activations per license" hint={PLAN_WORDS.exemptLimit}>
        <Input
          type="number"
          name="exempt_limit"
          class="short"
          min={0}
          max={MAX_EXEMPT_LIMIT}
          step={1}
          required
          value={draft.exemptLimit}
          onValue={(exemptLimit) => onDraft({ ...draft, exemptLimit })}
        />
      </Field>
      <Field label="Trial days (empty for no trials)" hint={PLAN_WORDS.trialDays}>
        <Input
          type="number"
          name="trial_days"
          class="short"
          min={1}
          max={365}
          step={1}
          value={draft.trialDays}
          onValue={(trialDays) => onDraft({ ...draft, trialDays })}
        />
      </Field>
    </>
  );
}

export const termsReady = (draft: PlanTermsDraft) =>
  isLease(draft.lease) && isExemptLimit(draft.exemptLimit) && isTrialDays(draft.trialDays);
