/** The plans on the catalog page: their list, and the form of a new one. */
import { useState } from 'preact/hooks';
import type { ActivationType, Plan } from '../../../libs/contracts/index.js';
import { Empty, Field, Table } from '../../../libs/web/ui/components.js';
import { Time } from '../../../libs/web/ui/time.js';
import { useApi } from './admin-api.js';
import { useDirectory } from './directory.js';
import { Input, LimitInput, WordSelect, isLimit } from './fields.js';
import { useAction } from './hooks.js';
import { Outcome } from './notices.js';
import { ACTIVATION_TYPE_WORDS, limitWords } from './words.js';

function PlanForm({ onSaved }: { onSaved: (plan: Plan) => void }) {
  const api = useApi();
  const [name, setName] = useState('');
  const [type, setType] = useState<ActivationType>('domain');
  const [limit, setLimit] = useState('1');
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      const plan = await api.call<Plan>('POST', '/plans', {
        name: name.trim(),
        activation_type: type,
        activation_limit: Number(limit),
      });
      setName('');
      onSaved(plan);
      return `Created ${plan.name}.`;
    });
  };
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
        <div class="field submit">
          <button type="submit" disabled={action.busy || name.trim() === '' || !isLimit(limit)}>
            Create plan
          </button>
        </div>
      </div>
      <Outcome action={action} />
    </form>
  );
}

export function Plans() {
  const { plans, reload } = useDirectory();
  return (
    <section aria-labelledby="plans-heading">
      <h2 id="plans-heading">Plans</h2>
      {plans.length === 0 ? (
        <Empty>There are no plans yet.</Empty>
      ) : (
        <Table columns={['ID', 'Name', 'Activation type', 'Activation limit', 'Created']}>
          {plans.map((plan) => (
            <tr key={plan.id}>
              <td>{plan.id}</td>
              <td>{plan.name}</td>
              <td>{ACTIVATION_TYPE_WORDS[plan.activation_type]}</td>
              <td>{limitWords(plan.activation_limit)}</td>
              <td>
                <Time value={plan.created_at} />
              </td>
            </tr>
          ))}
        </Table>
      )}
      <h3>New plan</h3>
      <PlanForm onSaved={reload} />
    </section>
  );
}
