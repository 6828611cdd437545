import { Field } from '../../../../../libs/web/ui/components.js';
import { MAX_USES_LIMIT } from '../../../../../libs/contracts/bounds.js';
import { Input, WordSelect } from '../../shared/components/fields.js';
import { USAGE_HINT, USES_RESET_WORDS, type PlanUsageDraft } from './usage-terms.js';

/** A plan's usage cap and its period, the same in the new plan's form and an edit. */
export function UsageFields({
  draft,
  onDraft,
}: {
  draft: PlanUsageDraft;
  onDraft: (draft: PlanUsageDraft) => void;
}) {
  return (
    <div class="row">
      <Field label="Uses per period (empty: not counted)" hint={USAGE_HINT}>
        <Input
          type="number"
          name="max_uses"
          class="short"
          min={1}
          max={MAX_USES_LIMIT}
          step={1}
          value={draft.maxUses}
          onValue={(maxUses) => onDraft({ ...draft, maxUses })}
        />
      </Field>
      <Field label="Uses reset">
        <WordSelect
          name="uses_reset"
          words={USES_RESET_WORDS}
          value={draft.usesReset}
          onChange={(usesReset) => onDraft({ ...draft, usesReset })}
        />
      </Field>
    </div>
  );
}
