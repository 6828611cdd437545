/** What a connection's store ids sell: a product and plan each, added, changed and removed. */
import { useState } from 'preact/hooks';
import { Empty, Field, Table } from '../../../../../libs/web/ui/components.js';
import { useApi, type Answer } from '../../shared/api/admin-api.js';
import { ConfirmRemoval, RemoveButton } from '../../shared/components/controls.js';
import { EditPanel } from '../../shared/components/edit-panel.js';
import { Input, PlanSelect, ProductSelect, Radios } from '../../shared/components/fields.js';
import { LoadView, Outcome } from '../../shared/components/notices.js';
import { useAction, useLoad, useRemoval } from '../../shared/hooks/hooks.js';
import { useCan } from '../../shared/hooks/permissions.js';
import { useProductsAndPlans } from '../../shared/hooks/products-and-plans.js';
import {
  EMPTY_MAPPING,
  EXTERNAL_ID_WORDS,
  RENEWAL_WORDS,
  durationWords,
  mappingComplete,
  mappingDraftOf,
  mappingTerms,
  type MappingDraft,
} from '../../shared/words/store-words.js';
import type { StoreConnection } from './new-connection-form.js';

type StoreMapping = Answer<'updateStoreMapping'>;

/** The terms of a mapping: product, plan, renewal and a one-off order's duration. */
function TermsFields({
  name,
  draft,
  onDraft,
}: {
  name: string;
  draft: MappingDraft;
  onDraft: (draft: MappingDraft) => void;
}) {
  return (
    <>
      <Field label="Product">
        <ProductSelect
          name="product_id"
          required
          none="Choose a product"
          value={draft.productId}
          onChange={(productId) => onDraft({ ...draft, productId })}
        />
      </Field>
      <Field label="Plan">
        <PlanSelect
          name="plan_id"
          required
          none="Choose a plan"
          value={draft.planId}
          onChange={(planId) => onDraft({ ...draft, planId })}
        />
      </Field>
      <Radios
        legend="A subscription's renewal"
        name={`${name}-renewal`}
        value={draft.renewal}
        onChange={(renewal) => onDraft({ ...draft, renewal })}
        choices={RENEWAL_WORDS}
      />
      <Field
        label="Days a one-off order's license runs"
        hint="Empty: it does not expire. Subscriptions run to the end of each paid period."
      >
        <Input
          type="number"
          name="duration_days"
          min={1}
          max={36500}
          step={1}
          value={draft.durationDays}
          onValue={(durationDays) => onDraft({ ...draft, durationDays })}
        />
      </Field>
    </>
  );
}

function NewMapping({ connection, onAdded }: { connection: StoreConnection; onAdded: () => void }) {
  const api = useApi();
  const [draft, setDraft] = useState<MappingDraft>(EMPTY_MAPPING);
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      const made = await api.call('createStoreMapping', {
        params: { id: connection.id },
        body: { external_id: draft.externalId.trim(), ...mappingTerms(draft) },
      });
      setDraft(EMPTY_MAPPING);
      onAdded();
      return `Mapped ${made.external_id}.`;
    });
  };
  return (
    <form method="post" onSubmit={submit} class="panel" aria-label="New mapping">
      <Field
        label={EXTERNAL_ID_WORDS[connection.provider]}
        hint="As the store's events name it; its events then issue and change licenses of the plan."
      >
        <Input
          name="external_id"
          class="mono"
          required
          maxLength={255}
          autocomplete="off"
          spellcheck={false}
          value={draft.externalId}
          onValue={(externalId) => setDraft({ ...draft, externalId })}
        />
      </Field>
      <TermsFields name="new-mapping" draft={draft} onDraft={setDraft} />
      <button type="submit" disabled={action.busy || !mappingComplete(draft)}>
        Add mapping
      </button>
      <Outcome action={action} />
    </form>
  );
}

function EditMapping({
  mapping,
  onSaved,
  onCancel,
}: {
  mapping: StoreMapping;
  onSaved: () => void;
  onCancel: () => void;
}) {
  const api = useApi();
  const [draft, setDraft] = useState<MappingDraft>(() => mappingDraftOf(mapping));
  const save = async () => {
    await api.call('updateStoreMapping', { params: { id: mapping.id }, body: mappingTerms(draft) });
    onSaved();
  };
  return (
    <EditPanel
      label={`Edit mapping ${mapping.external_id}`}
      first="duration_days"
      ready={mappingComplete(draft)}
      save={save}
      onCancel={onCancel}
    >
      <TermsFields name="edit-mapping" draft={draft} onDraft={setDraft} />
    </EditPanel>
  );
}

export function Mappings({ connection }: { connection: StoreConnection }) {
  const api = useApi();
  const can = useCan();
  const { productTitle, planName } = useProductsAndPlans();
  const params = { id: connection.id };
  const loaded = useLoad(() => api.call('listStoreMappings', { params }), [api, connection.id]);
  const [editing, setEditing] = useState<number | null>(null);
  const action = useAction();
  const removal = useRemoval(action, async (mapping: StoreMapping) => {
    await api.call('deleteStoreMapping', { params: { id: mapping.id } });
    loaded.reload();
    return `Removed the mapping of ${mapping.external_id}: its events change nothing now.`;
  });
  return (
    <section aria-labelledby="mappings-heading">
      <h3 id="mappings-heading" ref={removal.heading} tabIndex={-1}>
        Mappings
      </h3>
      <Outcome action={action} />
      <LoadView loaded={loaded} what="the mappings">
        {({ mappings }) =>
          mappings.length === 0 ? (
            <Empty>Nothing mapped: this store's events change no license until an id is.</Empty>
          ) : (
            <Table columns={['Store id', 'Product', 'Plan', 'Renewal', 'One-off order']} actions>
              {mappings.map((mapping) => (
                <tr key={mapping.id} data-mapping={mapping.id}>
                  <td class="mono">{mapping.external_id}</td>
                  <td>{productTitle(mapping.product_id)}</td>
                  <td>{planName(mapping.plan_id)}</td>
                  <td>{RENEWAL_WORDS[mapping.renewal]}</td>
                  <td>{durationWords(mapping.duration_days)}</td>
                  <td class="actions">
                    {can('updateStoreMapping') && (
                      <button
                        type="button"
                        class="secondary small"
                        aria-label={`Edit mapping ${mapping.external_id}`}
                        aria-expanded={editing === mapping.id}
                        onClick={() => setEditing(editing === mapping.id ? null : mapping.id)}
                      >
                        Edit
                      </button>
                    )}
                    <RemoveButton
                      removal={removal}
                      item={mapping}
                      verb="Remove"
                      name={`mapping ${mapping.external_id}`}
                      allowed={can('deleteStoreMapping')}
                    />
                  </td>
                </tr>
              ))}
            </Table>
          )
        }
      </LoadView>
      {editing !== null && loaded.data?.mappings.some((m) => m.id === editing) && (
        <EditMapping
          mapping={loaded.data.mappings.find((m) => m.id === editing)!}
          onSaved={() => {
            setEditing(null);
            loaded.reload();
          }}
          onCancel={() => setEditing(null)}
        />
      )}
      {can('createStoreMapping') && <NewMapping connection={connection} onAdded={loaded.reload} />}
      <ConfirmRemoval removal={removal} title="Remove this mapping?" confirmLabel="Remove mapping">
        {(mapping) => (
          <p>
            The store's events for <span class="mono">{mapping.external_id}</span> will change no
            license until it is mapped again. Licenses issued before stay as they are.
          </p>
        )}
      </ConfirmRemoval>
    </section>
  );
}
