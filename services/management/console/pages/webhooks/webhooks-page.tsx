/** The webhooks page: the endpoints, a new one (its secret shown once), and one endpoint's page. */
import { useState } from 'preact/hooks';
import type {
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from '../../../../../libs/contracts/index.js';
import { MAX_WEBHOOK_ENDPOINTS } from '../../../../../libs/contracts/bounds.js';
import { Empty, Table } from '../../../../../libs/web/ui/components.js';
import { Time } from '../../../../../libs/web/ui/time.js';
import { useApi } from '../../shared/api/admin-api.js';
import { ReloadButton } from '../../shared/components/controls.js';
import { useAction, useLoad } from '../../shared/hooks/hooks.js';
import { LoadView, Outcome } from '../../shared/components/notices.js';
import { EndpointFields, EndpointState, EventList } from '../../shared/components/webhook-parts.js';
import { SecretNotice } from '../../shared/components/secret-notice.js';
import {
  EMPTY_ENDPOINT,
  endpointBody,
  endpointComplete,
  type EndpointDraft,
} from '../../shared/words/webhook-words.js';
import { useCan } from '../../shared/hooks/permissions.js';

function NewEndpointForm({
  full,
  onCreated,
}: {
  full: boolean;
  onCreated: (endpoint: WebhookEndpointWithSecret) => void;
}) {
  const api = useApi();
  const can = useCan();
  const [draft, setDraft] = useState<EndpointDraft>(EMPTY_ENDPOINT);
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      const created = await api.call('createWebhook', { body: endpointBody(draft) });
      setDraft(EMPTY_ENDPOINT);
      onCreated(created);
      return null;
    });
  };
  if (!can('createWebhook')) return null;
  return (
    <form method="post" onSubmit={submit} class="panel" aria-label="New webhook endpoint">
      <EndpointFields
        name="new-webhook"
        draft={draft}
        onDraft={setDraft}
        urlHint="Where each event is POSTed: an http or https address the server can reach."
        urlPlaceholder="https://hooks.example.com/licensing"
      />
      {full && (
        <p class="hint">
          There are {MAX_WEBHOOK_ENDPOINTS} endpoints, as many as the system keeps: delete one
          first.
        </p>
      )}
      <button type="submit" disabled={action.busy || full || !endpointComplete(draft)}>
        Add endpoint
      </button>
      <Outcome action={action} />
    </form>
  );
}

function Endpoints({
  endpoints,
  onOpen,
}: {
  endpoints: readonly WebhookEndpoint[];
  onOpen: (id: number) => void;
}) {
  if (endpoints.length === 0) return <Empty>No webhook endpoint yet.</Empty>;
  return (
    <Table columns={['URL', 'Events', 'State', 'Description', 'Added']} actions>
      {endpoints.map((endpoint) => (
        <tr key={endpoint.id} data-endpoint={endpoint.id}>
          <td class="mono long">{endpoint.url}</td>
          <td>
            <EventList events={endpoint.events} />
          </td>
          <td>
            <EndpointState endpoint={endpoint} />
          </td>
          <td>{endpoint.description ?? <span class="muted">none</span>}</td>
          <td>
            <Time value={endpoint.created_at} />
          </td>
          <td class="actions">
            <button
              type="button"
              class="secondary small"
              aria-label={`Open webhook ${endpoint.url}`}
              onClick={() => onOpen(endpoint.id)}
            >
              Open
            </button>
          </td>
        </tr>
      ))}
    </Table>
  );
}

export function WebhooksPage({ onOpen }: { onOpen: (id: number) => void }) {
  const api = useApi();
  const can = useCan();
  const loaded = useLoad(() => api.call('listWebhooks'), [api]);
  // The secret of the endpoint just made: in this component's state only (SecretNotice).
  const [created, setCreated] = useState<WebhookEndpointWithSecret | null>(null);
  const count = loaded.data?.webhooks.length ?? 0;
  return (
    <section aria-labelledby="webhooks-heading">
      <div class="title-row">
        <h1 id="webhooks-heading">Webhooks</h1>
        <ReloadButton loaded={loaded} />
      </div>
      <p class="muted">
        Each endpoint gets the events it asked for as signed HTTP POSTs; a delivery that fails is
        tried again later, and an endpoint whose every delivery failed for 5 days is disabled.
      </p>
      {created !== null && (
        <SecretNotice
          title={`Signing secret of ${created.url}`}
          secret={created.secret}
          onDone={() => setCreated(null)}
        />
      )}
      <LoadView loaded={loaded} what="the webhook endpoints">
        {({ webhooks }) => <Endpoints endpoints={webhooks} onOpen={onOpen} />}
      </LoadView>
      <h2 hidden={!can('createWebhook')}>Add an endpoint</h2>
      <NewEndpointForm
        full={count >= MAX_WEBHOOK_ENDPOINTS}
        onCreated={(endpoint) => {
          setCreated(endpoint);
          loaded.reload();
        }}
      />
    </section>
  );
}
