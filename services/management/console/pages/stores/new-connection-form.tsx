import { useState } from 'preact/hooks';
import { Field } from '../../../../../libs/web/ui/components.js';
import { useApi, type Answer } from '../../shared/api/admin-api.js';
import { Input, WordSelect } from '../../shared/components/fields.js';
import { Outcome } from '../../shared/components/notices.js';
import { useAction } from '../../shared/hooks/hooks.js';
import { useCan } from '../../shared/hooks/permissions.js';
import {
  EMPTY_CONNECTION,
  PROVIDER_WORDS,
  connectionBody,
  connectionComplete,
  type ConnectionDraft,
} from '../../shared/words/store-words.js';
import { EmailsField, GraceDaysField, ModeField, SecretField } from './connection-fields.js';

export type StoreConnection = Answer<'getStoreConnection'>;

/** A new connection: the store, its mode, the secret pasted from it and what its sales do. */
export function NewConnectionForm({ onCreated }: { onCreated: (made: StoreConnection) => void }) {
  const api = useApi();
  const can = useCan();
  const [draft, setDraft] = useState<ConnectionDraft>(EMPTY_CONNECTION);
  const action = useAction();
  if (!can('createStoreConnection')) return null;
  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      const made = await api.call('createStoreConnection', { body: connectionBody(draft) });
      setDraft(EMPTY_CONNECTION);
      onCreated(made);
      return null;
    });
  };
  return (
    <form method="post" onSubmit={submit} class="panel" aria-label="New store connection">
      <Field label="Name" hint="What the console calls it: the shop, and test or live.">
        <Input
          name="name"
          required
          maxLength={255}
          autocomplete="off"
          value={draft.name}
          onValue={(name) => setDraft({ ...draft, name })}
        />
      </Field>
      <Field label="Store">
        <WordSelect
          name="provider"
          words={PROVIDER_WORDS}
          value={draft.provider}
          onChange={(provider) => setDraft({ ...draft, provider })}
        />
      </Field>
      <ModeField
        name="new-mode"
        value={draft.mode}
        onChange={(mode) => setDraft({ ...draft, mode })}
      />
      <SecretField
        label="Signing secret"
        name="signing_secret"
        required
        provider={draft.provider}
        value={draft.signingSecret}
        onValue={(signingSecret) => setDraft({ ...draft, signingSecret })}
      />
      <SecretField
        label="API key (optional)"
        name="api_key"
        provider={draft.provider}
        hint={
          'Lets the service read what an event leaves out (a Stripe Checkout Session’s items): ' +
          'a restricted key that reads Checkout Sessions and Invoices is enough.'
        }
        value={draft.apiKey}
        onValue={(apiKey) => setDraft({ ...draft, apiKey })}
      />
      <GraceDaysField
        value={draft.graceDays}
        onValue={(graceDays) => setDraft({ ...draft, graceDays })}
      />
      <EmailsField value={draft.emails} onChange={(emails) => setDraft({ ...draft, emails })} />
      <button type="submit" disabled={action.busy || !connectionComplete(draft)}>
        Add connection
      </button>
      <Outcome action={action} />
    </form>
  );
}
