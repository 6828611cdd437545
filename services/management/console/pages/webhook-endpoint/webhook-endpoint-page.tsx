/** One webhook endpoint: its settings and actions, and its deliveries with their attempts. */
import { useCallback, useRef, useState } from 'preact/hooks';
import type { WebhookEndpoint } from '../../../../../libs/contracts/index.js';
import { useApi } from '../../shared/api/admin-api.js';
import { ConfirmRemoval, ReloadButton } from '../../shared/components/controls.js';
import { useAction, useLoad, useRemoval } from '../../shared/hooks/hooks.js';
import { Done, LoadView, Outcome } from '../../shared/components/notices.js';
import { SecretNotice } from '../../shared/components/secret-notice.js';
import { useCan } from '../../shared/hooks/permissions.js';
import { EndpointFacts } from './endpoint-facts.js';
import { EditEndpoint } from './edit-endpoint.js';
import { Deliveries, type DeliveryFilter } from './deliveries.js';
import { useFollowDue } from './follow-due.js';
import { keepingFocus } from '../../shared/lib/keeping-focus.js';

const PER_PAGE = 20;

export function WebhookEndpointPage({
  endpointId,
  onBack,
}: {
  endpointId: number;
  onBack: () => void;
}) {
  const api = useApi();
  const can = useCan();
  const params = { id: endpointId };
  const loaded = useLoad(() => api.call('getWebhook', { params }), [api, endpointId]);
  const [filter, setFilter] = useState<DeliveryFilter>({ status: null, page: 1 });
  const deliveries = useLoad(
    () =>
      api.call('listWebhookDeliveries', {
        params,
        query: { status: filter.status, page: filter.page, per_page: PER_PAGE },
      }),
    [api, endpointId, filter],
  );
  // The endpoint too: its state (failing since) changes with the attempts.
  const reloadBoth = useCallback(() => {
    deliveries.reload();
    loaded.reload();
  }, [deliveries.reload, loaded.reload]);
  useFollowDue(deliveries.data, loaded.data?.enabled ?? false, reloadBoth);
  const [editing, setEditing] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const [deleted, setDeleted] = useState<WebhookEndpoint | null>(null);
  // The new secret after a rotation: in this component's state only (SecretNotice).
  const [rotated, setRotated] = useState<string | null>(null);
  const editButton = useRef<HTMLButtonElement>(null);
  const action = useAction();
  const removal = useRemoval(action, async (endpoint: WebhookEndpoint) => {
    const gone = await api.call('deleteWebhook', { params });
    setDeleted(gone);
    return `Deleted the endpoint ${endpoint.url}; nothing more is sent to it.`;
  });
  const rotation = useRemoval(action, async (_endpoint: WebhookEndpoint) => {
    const changed = await api.call('rotateWebhookSecret', { params });
    const { secret, ...endpoint } = changed;
    loaded.replace(endpoint);
    setRotated(secret);
    return null;
  });
  const closeEdit = () => {
    setEditing(false);
    editButton.current?.focus();
  };
  const setEnabled = (endpoint: WebhookEndpoint, enabled: boolean) =>
    action.run(async () => {
      const changed = await api.call('updateWebhook', { params, body: { enabled } });
      loaded.replace(changed);
      return enabled ? `Enabled ${changed.url}.` : `Disabled ${endpoint.url}.`;
    });
  const sendTest = () =>
    action.run(async () => {
      const delivery = await api.call('sendWebhookTest', { params });
      setFilter({ status: null, page: 1 });
      deliveries.reload();
      return `Queued a test event as ${delivery.id}; its attempts are listed below.`;
    });

  return (
    <section aria-labelledby="webhook-heading">
      <div class="title-row">
        <h1 id="webhook-heading" ref={removal.heading} tabIndex={-1}>
          Webhook endpoint
        </h1>
        <div class="row">
          <button type="button" class="secondary" onClick={onBack}>
            Back to webhooks
          </button>
          {deleted === null && <ReloadButton loaded={loaded} />}
        </div>
      </div>
      {deleted !== null ? (
        <Done>{action.done}</Done>
      ) : (
        <LoadView loaded={loaded} what="the webhook endpoint">
          {(endpoint) => (
            <>
              <EndpointFacts endpoint={endpoint} />
              {!endpoint.enabled && (
                <p class="hint">
                  While it is disabled it gets no new events, and its test events and retries wait
                  until it is enabled again.
                </p>
              )}
              {rotated !== null && (
                <SecretNotice
                  title="New signing secret"
                  secret={rotated}
                  onDone={() => setRotated(null)}
                />
              )}
              <div class="row" role="group" aria-label="Actions">
                <button
                  type="button"
                  class="secondary"
                  ref={editButton}
                  hidden={!can('updateWebhook')}
                  aria-expanded={editing}
                  onClick={() => {
                    action.clear();
                    setSaved(null);
                    setEditing(!editing);
                  }}
                >
                  Edit
                </button>
                <button
                  type="button"
                  class="secondary"
                  disabled={action.busy}
                  hidden={!can('updateWebhook')}
                  onClick={(event) =>
                    void keepingFocus(event.currentTarget, () =>
                      setEnabled(endpoint, !endpoint.enabled),
                    )
                  }
                >
                  {endpoint.enabled ? 'Disable' : 'Enable'}
                </button>
                <button
                  type="button"
                  class="secondary"
                  disabled={action.busy}
                  hidden={!can('sendWebhookTest')}
                  onClick={(event) => void keepingFocus(event.currentTarget, sendTest)}
                >
                  Send test event
                </button>
                <button
                  type="button"
                  class="secondary"
                  disabled={action.busy}
                  hidden={!can('rotateWebhookSecret')}
                  onClick={() => rotation.ask(endpoint)}
                >
                  Rotate secret
                </button>
                <button
                  type="button"
                  class="danger"
                  disabled={action.busy}
                  hidden={!can('deleteWebhook')}
                  onClick={() => removal.ask(endpoint)}
                >
                  Delete
                </button>
              </div>
              <Outcome action={action} />
              <Done>{saved}</Done>
              {editing && (
                <EditEndpoint
                  endpoint={endpoint}
                  onSaved={(changed) => {
                    loaded.replace(changed);
                    setSaved(`Saved ${changed.url}.`);
                    closeEdit();
                  }}
                  onCancel={closeEdit}
                />
              )}
              <Deliveries
                endpointId={endpointId}
                deliveries={deliveries}
                filter={filter}
                onFilter={setFilter}
              />
              <ConfirmRemoval
                removal={removal}
                title="Delete this webhook endpoint?"
                confirmLabel="Delete endpoint"
              >
                {(removing) => (
                  <p>
                    <span class="mono">{removing.url}</span> will receive no more events.
                  </p>
                )}
              </ConfirmRemoval>
              <ConfirmRemoval
                removal={rotation}
                title="Replace the signing secret?"
                confirmLabel="Rotate secret"
              >
                {() => (
                  <p>
                    A new secret is made and shown once. The current one keeps signing deliveries
                    beside it for 24 hours, so the receiver can switch; then only the new one does.
                  </p>
                )}
              </ConfirmRemoval>
            </>
          )}
        </LoadView>
      )}
    </section>
  );
}
