import { useState } from 'preact/hooks';
import type {
  StoreEmails,
  StoreMode,
} from '../../../../../libs/contracts/stores/store-connections.js';
import { Field } from '../../../../../libs/web/ui/components.js';
import { useApi } from '../../shared/api/admin-api.js';
import { Check, Input } from '../../shared/components/fields.js';
import { EditPanel } from '../../shared/components/edit-panel.js';
import { isGraceDays, secretProblem } from '../../shared/words/store-words.js';
import { EmailsField, GraceDaysField, ModeField, SecretField } from './connection-fields.js';
import type { StoreConnection } from './new-connection-form.js';

interface SettingsDraft {
  name: string;
  mode: StoreMode;
  graceDays: string;
  emails: StoreEmails;
  /** A new API key pasted; empty keeps the one set. */
  apiKey: string;
  removeApiKey: boolean;
}

/** A connection's settings changed in place (PATCH); its API key replaced or removed. */
export function EditConnection({
  connection,
  onSaved,
  onCancel,
}: {
  connection: StoreConnection;
  onSaved: (changed: StoreConnection) => void;
  onCancel: () => void;
}) {
  const api = useApi();
  const [draft, setDraft] = useState<SettingsDraft>({
    name: connection.name,
    mode: connection.mode,
    graceDays: String(connection.grace_days),
    emails: connection.emails,
    apiKey: '',
    removeApiKey: false,
  });
  const ready =
    draft.name.trim() !== '' &&
    isGraceDays(draft.graceDays) &&
    secretProblem(draft.apiKey) === null;
  const save = async () => {
    const apiKey = draft.removeApiKey
      ? { api_key: null }
      : draft.apiKey === ''
        ? {}
        : { api_key: draft.apiKey };
    const changed = await api.call('updateStoreConnection', {
      params: { id: connection.id },
      body: {
        name: draft.name.trim(),
        mode: draft.mode,
        grace_days: Number(draft.graceDays),
        emails: draft.emails,
        ...apiKey,
      },
    });
    onSaved(changed);
  };
  return (
    <EditPanel
      label="Edit store connection"
      first="name"
      ready={ready}
      save={save}
      onCancel={onCancel}
    >
      <Field label="Name">
        <Input
          name="name"
          required
          maxLength={255}
          autocomplete="off"
          value={draft.name}
          onValue={(name) => setDraft({ ...draft, name })}
        />
      </Field>
      <ModeField
        name="edit-mode"
        value={draft.mode}
        onChange={(mode) => setDraft({ ...draft, mode })}
      />
      <GraceDaysField
        value={draft.graceDays}
        onValue={(graceDays) => setDraft({ ...draft, graceDays })}
      />
      <EmailsField value={draft.emails} onChange={(emails) => setDraft({ ...draft, emails })} />
      <SecretField
        label={
          connection.api_key_set ? 'New API key (empty keeps the one set)' : 'API key (optional)'
        }
        name="api_key"
        provider={connection.provider}
        hint="Kept by the service, never shown again."
        value={draft.apiKey}
        onValue={(apiKey) => setDraft({ ...draft, apiKey, removeApiKey: false })}
      />
      {connection.api_key_set && (
        <Check
          label="Remove the API key"
          checked={draft.removeApiKey}
          onChange={(removeApiKey) => setDraft({ ...draft, removeApiKey, apiKey: '' })}
        />
      )}
    </EditPanel>
  );
}

/**
 * The store's new signing secret, pasted once the store has replaced it: the one before keeps
 * verifying for 24 hours, so the events the store signed with it meanwhile are taken.
 */
export function RotateSecret({
  connection,
  onSaved,
  onCancel,
}: {
  connection: StoreConnection;
  onSaved: (changed: StoreConnection) => void;
  onCancel: () => void;
}) {
  const api = useApi();
  const [secret, setSecret] = useState('');
  const save = async () => {
    const changed = await api.call('updateStoreConnection', {
      params: { id: connection.id },
      body: { signing_secret: secret },
    });
    onSaved(changed);
  };
  return (
    <EditPanel
      label="New signing secret"
      first="signing_secret"
      ready={secret !== '' && secretProblem(secret) === null}
      save={save}
      onCancel={onCancel}
    >
      <p class="hint">
        Replace the secret in the store first, then paste its new one here. The current one keeps
        verifying for 24 hours, so no event the store sends meanwhile is refused.
      </p>
      <SecretField
        label="New signing secret"
        name="signing_secret"
        required
        provider={connection.provider}
        value={secret}
        onValue={setSecret}
      />
    </EditPanel>
  );
}
