/** The plans on the catalog page: their list with their lease and exempt settings, and forms. */
import { useRef, useState } from 'preact/hooks';
import type { Plan } from '../../../../../libs/contracts/index.js';
import { Empty, Table } from '../../../../../libs/web/ui/components.js';
import { Time } from '../../../../../libs/web/ui/time.js';
import { useProductsAndPlans } from '../../shared/hooks/products-and-plans.js';
import { Done } from '../../shared/components/notices.js';
import {
  ACTIVATION_TYPE_WORDS,
  exemptLimitWords,
  leaseWordsOrNone,
  limitWords,
} from '../../shared/words/words.js';
import { useCan } from '../../shared/hooks/permissions.js';
import { NewPlanForm } from './new-plan-form.js';
import { EditPlan } from './edit-plan.js';
import { usageWords } from './usage-terms.js';

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

/** The plans: their list, the edit panel of one, and the new plan's form. */
export function Plans() {
  const { plans, reload } = useProductsAndPlans();
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
            'Usage',
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
              <td>{usageWords(plan)}</td>
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
          <EditPlan
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
