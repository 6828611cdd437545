import { Field } from '../../../../../libs/web/ui/components.js';
import { Input, WordSelect } from '../../shared/components/fields.js';
import {
  EXPIRY_STRATEGY_EFFECTS,
  EXPIRY_STRATEGY_WORDS,
  MAX_GRACE_DAYS,
  RENEWAL_BASIS_WORDS,
  isGraceDays,
  type ExpiryTermsDraft,
} from './expiry-terms.js';

/** The expiry strategy, grace days and renewal basis, the same in the new plan's form and an edit. */
export function ExpiryFields({
  draft,
  onDraft,
}: {
  draft: ExpiryTermsDraft;
  onDraft: (draft: ExpiryTermsDraft) => void;
}) {
  return (
    <>
      <Field label="When a license expires" hint={EXPIRY_STRATEGY_EFFECTS[draft.strategy]}>
        <WordSelect
          name="expiry_strategy"
          words={EXPIRY_STRATEGY_WORDS}
          value={draft.strategy}
          onChange={(strategy) => onDraft({ ...draft, strategy })}
        />
      </Field>
      <Field
        label="Grace days"
        hint="For this many days after its expiry a license still works as active; then the choice above applies."
      >
        <Input
          type="number"
          name="grace_days"
          class="short"
          min={0}
          max={MAX_GRACE_DAYS}
          step={1}
          required
          value={draft.graceDays}
          onValue={(graceDays) => onDraft({ ...draft, graceDays })}
        />
      </Field>
      <Field label="A renewal by a number of days counts">
        <WordSelect
          name="renewal_basis"
          words={RENEWAL_BASIS_WORDS}
          value={draft.renewalBasis}
          onChange={(renewalBasis) => onDraft({ ...draft, renewalBasis })}
        />
      </Field>
    </>
  );
}

export const expiryReady = (draft: ExpiryTermsDraft) => isGraceDays(draft.graceDays);
