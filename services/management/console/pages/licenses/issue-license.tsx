import { useState } from 'preact/hooks';
import { Empty, Field } from '../../../../../libs/web/ui/components.js';
import { useApi } from '../../shared/api/admin-api.js';
import { CustomerFields } from '../../shared/components/customer-fields.js';
import { useProductsAndPlans } from '../../shared/hooks/products-and-plans.js';
import {
  Input,
  PlanSelect,
  ProductSelect,
  localInputToIso,
} from '../../shared/components/fields.js';
import { useAction } from '../../shared/hooks/hooks.js';
import { Outcome } from '../../shared/components/notices.js';
import { useCan } from '../../shared/hooks/permissions.js';

/** Issue a license (it copies the plan's limit and type); the new license opens. */
export function IssueLicense({ onIssued }: { onIssued: (key: string) => void }) {
  const api = useApi();
  const can = useCan();
  const { products, plans } = useProductsAndPlans();
  const [productId, setProductId] = useState<number | null>(null);
  const [planId, setPlanId] = useState<number | null>(null);
  const [expires, setExpires] = useState('');
  const [key, setKey] = useState('');
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    // Issue is offered once both are chosen.
    if (productId === null || planId === null) return;
    await action.run(async () => {
      const license = await api.call('createLicense', {
        body: {
          product_id: productId,
          plan_id: planId,
          expires_at: localInputToIso(expires),
          ...(key.trim() === '' ? {} : { license_key: key.trim() }),
          ...(email.trim() === ''
            ? {}
            : { customer: { email, name: name.trim() === '' ? null : name } }),
        },
      });
      onIssued(license.license_key);
      return null;
    });
  };
  if (!can('createLicense')) return null;
  return (
    <details class="panel">
      <summary>Issue a license</summary>
      {products.length === 0 || plans.length === 0 ? (
        <Empty>Create a product and a plan first (Products and plans).</Empty>
      ) : (
        <form method="post" onSubmit={submit} class="row">
          <Field label="Product">
            <ProductSelect required none="Choose…" value={productId} onChange={setProductId} />
          </Field>
          <Field label="Plan">
            <PlanSelect required none="Choose…" value={planId} onChange={setPlanId} />
          </Field>
          <Field label="Expires" hint="Your time zone; empty: never.">
            <Input type="datetime-local" value={expires} onValue={setExpires} />
          </Field>
          <Field label="License key" hint="Letters, digits, - and _; empty: one is generated.">
            <Input
              autocomplete="off"
              spellcheck={false}
              maxLength={255}
              value={key}
              onValue={setKey}
            />
          </Field>
          <CustomerFields email={email} onEmail={setEmail} name={name} onName={setName} />
          <div class="field submit">
            <button type="submit" disabled={action.busy || productId === null || planId === null}>
              Issue
            </button>
          </div>
        </form>
      )}
      <Outcome action={action} />
    </details>
  );
}
