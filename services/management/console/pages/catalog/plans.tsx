/** The plans on the catalog page: their list with their lease and exempt settings, and forms. */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ActivationType, Plan } from '../../../../../libs/contracts/index.js';
import { Empty, Field, Table } from '../../../../../libs/web/ui/components.js';
import { Time } from '../../../../../libs/web/ui/time.js';
import { useApi } from '../../shared/api/admin-api.js';
import { MAX_EXEMPT_LIMIT, MAX_LEASE_SECONDS } from '../../../../../libs/contracts/bounds.js';
import { useDirectory } from '../../shared/hooks/directory.js';
import { Input, LimitInput, WordSelect, isLimit } from '../../shared/components/fields.js';
import { useAction } from '../../shared/hooks/hooks.js';
import { Done, Outcome } from '../../shared/components/notices.js';
import {
  NEW_PLAN_TERMS,
  isExemptLimit,
  isLease,
  termsBody,
  termsDraftOf,
  type PlanTermsDraft,
} from './plan-terms.js';
import {
  ACTIVATION_TYPE_WORDS,
  PLAN_WORDS,
  exemptLimitWords,
  leaseWordsOrNone,
  limitWords,
} from '../../shared/words/words.js';
import { useCan } from '../../shared/hooks/permissions.js';

/** The lease and exempt fields, the same in the new plan's form and an edit. */
function TermsFields({
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
    </>
  );
}

const termsReady = (draft: PlanTermsDraft) =>
  isLease(draft.lease) && isExemptLimit(draft.exemptLimit);

function NewPlanForm({ onSaved }: { onSaved: (plan: Plan) => void }) {
  const api = useApi();
  const can = useCan();
  const [name, setName] = useState('');
  const [type, setType] = useState<ActivationType>('domain');
  const [limit, setLimit] = useState('1');
  const [terms, setTerms] = useState<PlanTermsDraft>(NEW_PLAN_TERMS);
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
        },
      });
      setName('');
      setTerms(NEW_PLAN_TERMS);
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
      <p class="hint">{PLAN_WORDS.takenWhen}</p>
      <button
        type="submit"
        disabled={action.busy || name.trim() === '' || !isLimit(limit) || !termsReady(terms)}
      >
        Create plan
      </button>
      <Outcome action={action} />
    </form>
  );
}

/**
 * A plan's name, lease and exempt settings changed (PATCH). Focus starts in its first field, and
 * Escape cancels, so the keyboard need not travel past the rest of the list to reach it.
 */
function EditPlanForm({
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
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => form.current?.querySelector<HTMLInputElement>('input[name="name"]')?.focus(), []);
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      // Every field, so the request is never an empty PATCH, which the API refuses.
      const saved = await api.call('updatePlan', {
        params: { id: plan.id },
        body: { name: name.trim(), ...termsBody(terms) },
      });
      onSaved(saved);
      return null;
    });
  };
  return (
    <form
      method="post"
      ref={form}
      onSubmit={submit}
      onKeyDown={(event) => {
        if (event.key === 'Escape') onCancel();
      }}
      class="panel"
      aria-label={`Edit plan ${plan.name}`}
    >
      <Field label="Name">
        <Input name="name" required maxLength={255} value={name} onValue={setName} />
      </Field>
      <TermsFields draft={terms} onDraft={setTerms} />
      <p class="hint">
        {PLAN_WORDS.takenWhen} {PLAN_WORDS.fixed}
      </p>
      <div class="row">
        <button type="submit" disabled={action.busy || name.trim() === '' || !termsReady(terms)}>
          Save
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
      <Outcome action={action} />
    </form>
  );
}

function ExemptCell({ plan }: { plan: Plan }) {
  if (plan.exempt_identifiers.length === 0) return <span class="muted">none</span>;
  return (
    <>
      <ul class="plain">
        {plan.exempt_identifiers.map((pattern) => (
          <li key={pattern} class="mono">
            {pattern}
          </li>
        ))}
      </ul>
      <span class="muted">{exemptLimitWords(plan.exempt_limit)}</span>
    </>
  );
}

export function Plans() {
  const { plans, reload } = useDirectory();
  const can = useCan();
  const [editing, setEditing] = useState<number | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  // The Edit button that opened the form, where focus returns when it closes.
  const opener = useRef<HTMLElement | null>(null);
  const close = () => {
    setEditing(null);
    opener.current?.focus();
  };
  const edited = plans.find((plan) => plan.id === editing);
  return (
    <section aria-labelledby="plans-heading">
      <h2 id="plans-heading">Plans</h2>
      <Done>{saved}</Done>
      {plans.length === 0 ? (
        <Empty>There are no plans yet.</Empty>
      ) : (
        <Table
          columns={[
            'ID',
            'Name',
            'Activation type',
            'Activation limit',
            'Lease',
            'Exempt identifiers',
            'Created',
          ]}
          actions
        >
          {plans.map((plan) => (
            <tr key={plan.id}>
              <td>{plan.id}</td>
              <td>{plan.name}</td>
              <td>{ACTIVATION_TYPE_WORDS[plan.activation_type]}</td>
              <td>{limitWords(plan.activation_limit)}</td>
              <td>{leaseWordsOrNone(plan.lease_seconds)}</td>
              <td>
                <ExemptCell plan={plan} />
              </td>
              <td>
                <Time value={plan.created_at} />
              </td>
              <td class="actions">
                <button
                  type="button"
                  class="secondary small"
                  hidden={!can('updatePlan')}
                  aria-label={`Edit plan ${plan.name}`}
                  aria-expanded={editing === plan.id}
                  onClick={(event) => {
                    setSaved(null);
                    opener.current = event.currentTarget;
                    setEditing(editing === plan.id ? null : plan.id);
                  }}
                >
                  Edit
                </button>
              </td>
            </tr>
          ))}
        </Table>
      )}
      {edited !== undefined && (
        <div key={edited.id}>
          <h3>Edit plan {edited.name}</h3>
          <EditPlanForm
            plan={edited}
            onSaved={(changed) => {
              setSaved(
                `Saved ${changed.name}. Licenses issued on it or moved to it from now on take ` +
                  'its settings.',
              );
              reload();
              close();
            }}
            onCancel={close}
          />
        </div>
      )}
      <h3 hidden={!can('createPlan')}>New plan</h3>
      <NewPlanForm onSaved={reload} />
    </section>
  );
}
