/** One store connection: where its store sends events, its settings and actions, its mappings. */
import { useRef, useState } from 'preact/hooks';
import { Time } from '../../../../../libs/web/ui/time.js';
import { useApi } from '../../shared/api/admin-api.js';
import { ConfirmRemoval } from '../../shared/components/controls.js';
import { CopyText } from '../../shared/components/copy-text.js';
import { Done, LoadView, Outcome } from '../../shared/components/notices.js';
import { useAction, useLoad, useRemoval } from '../../shared/hooks/hooks.js';
import { useCan } from '../../shared/hooks/permissions.js';
import {
  EMAIL_WORDS,
  MODE_WORDS,
  PROVIDER_WORDS,
  missingApiKeyWords,
} from '../../shared/words/store-words.js';
import { EditConnection, RotateSecret } from './edit-connection.js';
import { Mappings } from './mappings.js';
import type { StoreConnection } from './new-connection-form.js';

function ConnectionFacts({ connection }: { connection: StoreConnection }) {
  const emails = (Object.keys(EMAIL_WORDS) as (keyof typeof EMAIL_WORDS)[]).filter(
    (moment) => connection.emails[moment],
  );
  const missingKey = missingApiKeyWords(connection);
  return (
    <>
      <dl class="facts">
        <dt>Store</dt>
        <dd>
          {PROVIDER_WORDS[connection.provider]}, {MODE_WORDS[connection.mode].toLowerCase()}
        </dd>
        <dt>Events URL</dt>
        <dd>
          <CopyText text={connection.events_url} label={`the events URL of ${connection.name}`} />
        </dd>
        <dt>Grace days</dt>
        <dd>{connection.grace_days}</dd>
        <dt>E-mails</dt>
        <dd>{emails.length === 0 ? 'none' : emails.map((m) => EMAIL_WORDS[m]).join(', ')}</dd>
        <dt>API key</dt>
        <dd>{connection.api_key_set ? 'set' : 'none'}</dd>
        <dt>Secret replaced</dt>
        <dd>
          <Time value={connection.secret_rotated_at} />
        </dd>
        <dt>Added</dt>
        <dd>
          <Time value={connection.created_at} />
        </dd>
      </dl>
      {missingKey !== null && <p class="warning">{missingKey}</p>}
    </>
  );
}

type Editing = 'settings' | 'secret' | null;

export function ConnectionPanel({
  connectionId,
  onChanged,
  onRemoved,
  onClose,
}: {
  connectionId: number;
  /** The list shows the change. */
  onChanged: () => void;
  /** The connection is gone: the page says so, in `said`. */
  onRemoved: (said: string) => void;
  onClose: () => void;
}) {
  const api = useApi();
  const can = useCan();
  const params = { id: connectionId };
  const loaded = useLoad(() => api.call('getStoreConnection', { params }), [api, connectionId]);
  const [editing, setEditing] = useState<Editing>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const editButton = useRef<HTMLButtonElement>(null);
  const rotateButton = useRef<HTMLButtonElement>(null);
  const action = useAction();
  const removal = useRemoval(action, async (connection: StoreConnection) => {
    await api.call('deleteStoreConnection', { params });
    onRemoved(`Deleted ${connection.name}; what its store sends is no longer taken.`);
    return null;
  });
  const close = () => {
    const button = editing === 'secret' ? rotateButton : editButton;
    setEditing(null);
    button.current?.focus();
  };
  const onSaved = (said: string) => (changed: StoreConnection) => {
    loaded.replace(changed);
    onChanged();
    setSaved(said);
    close();
  };
  const toggle = (which: Exclude<Editing, null>) => {
    action.clear();
    setSaved(null);
    setEditing(editing === which ? null : which);
  };
  return (
    <section class="panel" aria-labelledby="connection-heading">
      <div class="title-row">
        <h2 id="connection-heading" ref={removal.heading} tabIndex={-1}>
          {loaded.data?.name ?? 'Store connection'}
        </h2>
        <button type="button" class="secondary small" onClick={onClose}>
          Close
        </button>
      </div>
      <LoadView loaded={loaded} what="the store connection">
        {(connection) => (
          <>
            <ConnectionFacts connection={connection} />
            <div class="row" role="group" aria-label="Actions">
              <button
                type="button"
                class="secondary"
                ref={editButton}
                hidden={!can('updateStoreConnection')}
                aria-expanded={editing === 'settings'}
                onClick={() => toggle('settings')}
              >
                Edit
              </button>
              <button
                type="button"
                class="secondary"
                ref={rotateButton}
                hidden={!can('updateStoreConnection')}
                aria-expanded={editing === 'secret'}
                onClick={() => toggle('secret')}
              >
                Rotate signing secret
              </button>
              <button
                type="button"
                class="danger"
                disabled={action.busy}
                hidden={!can('deleteStoreConnection')}
                onClick={() => removal.ask(connection)}
              >
                Delete
              </button>
            </div>
            <Outcome action={action} />
            <Done>{saved}</Done>
            {editing === 'settings' && (
              <EditConnection
                connection={connection}
                onSaved={onSaved('Saved the connection.')}
                onCancel={close}
              />
            )}
            {editing === 'secret' && (
              <RotateSecret
                connection={connection}
                onSaved={onSaved(
                  'The new signing secret verifies from now on; the one before, for 24 hours more.',
                )}
                onCancel={close}
              />
            )}
            <Mappings connection={connection} />
            <ConfirmRemoval
              removal={removal}
              title="Delete this store connection?"
              confirmLabel="Delete connection"
            >
              {(removing) => (
                <p>
                  What {removing.name} sends to its events URL is no longer taken, and its mappings
                  are removed. The events it sent stay listed; the licenses they made stay as they
                  are.
                </p>
              )}
            </ConfirmRemoval>
          </>
        )}
      </LoadView>
    </section>
  );
}
