/**
 * The Stores page (docs/stores.md): the stores whose sales become licenses, a new connection
 * (its events URL shown to copy into the store), one connection's settings and mappings, and
 * the events the stores delivered.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useApi } from '../../shared/api/admin-api.js';
import { CopyText } from '../../shared/components/copy-text.js';
import { ReloadButton } from '../../shared/components/controls.js';
import { Done, LoadView } from '../../shared/components/notices.js';
import { useLoad } from '../../shared/hooks/hooks.js';
import { useCan } from '../../shared/hooks/permissions.js';
import { PROVIDER_WORDS } from '../../shared/words/store-words.js';
import { ConnectionPanel } from './connection-panel.js';
import { ConnectionTable } from './connection-table.js';
import { NewConnectionForm, type StoreConnection } from './new-connection-form.js';
import { StoreEvents } from './store-events.js';

/** The connection just made: where its store is to send events. Focus moves to it. */
function Connected({ connection, onDone }: { connection: StoreConnection; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [connection.id]);
  return (
    <section class="panel secret" aria-labelledby="connected-heading">
      <h2 id="connected-heading" ref={heading} tabIndex={-1}>
        Events URL of {connection.name}
      </h2>
      <p>
        Paste it into {PROVIDER_WORDS[connection.provider]} as the webhook's URL. It is listed with
        the connection whenever it is needed again; the secret you pasted is not shown again.
      </p>
      <CopyText text={connection.events_url} label={`the events URL of ${connection.name}`} />
      <button type="button" class="secondary" onClick={onDone}>
        Done
      </button>
    </section>
  );
}

export function StoresPage() {
  const api = useApi();
  const can = useCan();
  const loaded = useLoad(() => api.call('listStoreConnections'), [api]);
  const [created, setCreated] = useState<StoreConnection | null>(null);
  const [opened, setOpened] = useState<number | null>(null);
  const [removed, setRemoved] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const connections = loaded.data?.connections ?? [];
  return (
    <section aria-labelledby="stores-heading">
      <div class="title-row">
        <h1 id="stores-heading" ref={heading} tabIndex={-1}>
          Stores
        </h1>
        <ReloadButton loaded={loaded} />
      </div>
      <p class="muted">
        Each connected store (Stripe, Paddle, Lemon Squeezy, WooCommerce) sends its sales to its
        events URL, signed with the secret it gave you; the ids of what it sells are mapped to a
        product and plan, and each event issues, renews, suspends or ends a license.
      </p>
      {created !== null && <Connected connection={created} onDone={() => setCreated(null)} />}
      <Done>{removed}</Done>
      <LoadView loaded={loaded} what="the store connections">
        {(list) => (
          <ConnectionTable
            connections={list.connections}
            onOpen={(id) => {
              setRemoved(null);
              setOpened(id);
            }}
          />
        )}
      </LoadView>
      {opened !== null && (
        <ConnectionPanel
          key={opened}
          connectionId={opened}
          onChanged={loaded.reload}
          onRemoved={(said) => {
            setOpened(null);
            setRemoved(said);
            loaded.reload();
            heading.current?.focus();
          }}
          onClose={() => setOpened(null)}
        />
      )}
      <h2 hidden={!can('createStoreConnection')}>Connect a store</h2>
      <NewConnectionForm
        onCreated={(connection) => {
          setRemoved(null);
          setCreated(connection);
          loaded.reload();
        }}
      />
      <StoreEvents connections={connections} />
    </section>
  );
}
