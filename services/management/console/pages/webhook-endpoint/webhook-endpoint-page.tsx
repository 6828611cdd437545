/** One webhook endpoint: its settings and actions, and its deliveries with their attempts. */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type {
  WebhookAttempt,
  WebhookDelivery,
  WebhookEndpoint,
} from '../../../../../libs/contracts/index.js';
import { Empty, Field, Table } from '../../../../../libs/web/ui/components.js';
import { Time } from '../../../../../libs/web/ui/time.js';
import { useApi, type Answer } from '../../shared/api/admin-api.js';
import { ConfirmRemoval, Pager, ReloadButton } from '../../shared/components/controls.js';
import { WordSelect } from '../../shared/components/fields.js';
import { useAction, useLoad, useRemoval, type Loaded } from '../../shared/hooks/hooks.js';
import { Done, LoadView, Outcome } from '../../shared/components/notices.js';
import {
  EndpointFields,
  EndpointState,
  EventList,
  SecretNotice,
} from '../../shared/components/webhook-parts.js';
import {
  DELIVERY_STATUS_WORDS,
  type DeliveryStatus,
  endpointBody,
  endpointComplete,
  endpointDraftOf,
  type EndpointDraft,
} from '../../shared/words/webhook-words.js';
import { useCan } from '../../shared/hooks/permissions.js';

type DeliveryPage = Answer<'listWebhookDeliveries'>;

const PER_PAGE = 20;

/** While a delivery shown is due within this time, the page reads the deliveries again... */
const FOLLOW_DUE_WITHIN_MS = 60_000;
/** ...this often. */
const FOLLOW_EVERY_MS = 2_000;

/**
 * While a delivery shown is pending and due soon, `reload` runs every two seconds, so its
 * attempts appear without a click. Polled rather than timed to its next attempt: a delivery
 * being tried shows when its sender's claim on it lapses instead. Not for a disabled endpoint,
 * whose deliveries wait.
 */
function useFollowDue(page: DeliveryPage | null, sending: boolean, reload: () => void) {
  useEffect(() => {
    if (!sending || page === null) return;
    const soon = Date.now() + FOLLOW_DUE_WITHIN_MS;
    const due = page.deliveries.some(
      (delivery) =>
        delivery.status === 'pending' &&
        delivery.next_attempt_at !== null &&
        Date.parse(delivery.next_attempt_at) <= soon,
    );
    if (!due) return;
    const timer = setTimeout(reload, FOLLOW_EVERY_MS);
    return () => clearTimeout(timer);
  }, [page, sending, reload]);
}

/**
 * Runs `work` started by `button`, which is disabled meanwhile and so loses keyboard focus; it
 * gets it back afterwards, unless focus has gone somewhere else by then.
 */
async function keepingFocus(button: HTMLElement, work: () => Promise<unknown>): Promise<void> {
  await work();
  const focused = document.activeElement;
  if (button.isConnected && (focused === null || focused === document.body)) button.focus();
}

function Facts({ endpoint }: { endpoint: WebhookEndpoint }) {
  return (
    <dl class="facts">
      <dt>URL</dt>
      <dd class="mono">{endpoint.url}</dd>
      <dt>Events</dt>
      <dd>
        <EventList events={endpoint.events} />
      </dd>
      <dt>State</dt>
      <dd>
        <EndpointState endpoint={endpoint} />
      </dd>
      <dt>Description</dt>
      <dd>{endpoint.description ?? <span class="muted">none</span>}</dd>
      <dt>Added</dt>
      <dd>
        <Time value={endpoint.created_at} />
      </dd>
      <dt>Secret replaced</dt>
      <dd>
        <Time value={endpoint.secret_rotated_at} />
      </dd>
    </dl>
  );
}

/**
 * The URL, events and description changed (PATCH). Focus starts in its first field, and Escape
 * cancels, as in the plan's edit form.
 */
function EditForm({
  endpoint,
  onSaved,
  onCancel,
}: {
  endpoint: WebhookEndpoint;
  onSaved: (endpoint: WebhookEndpoint) => void;
  onCancel: () => void;
}) {
  const api = useApi();
  const [draft, setDraft] = useState<EndpointDraft>(() => endpointDraftOf(endpoint));
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => form.current?.querySelector<HTMLInputElement>('input[name="url"]')?.focus(), []);
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      const saved = await api.call('updateWebhook', {
        params: { id: endpoint.id },
        body: endpointBody(draft),
      });
      onSaved(saved);
      return null;
    });
  };
  return (
    <form
      method="post"
      ref={form}
      onSubmit={submit}
      onKeyDown={(event) => {
        if (event.key === 'Escape') onCancel();
      }}
      class="panel"
      aria-label="Edit webhook endpoint"
    >
      <EndpointFields name="edit-webhook" draft={draft} onDraft={setDraft} />
      <div class="row">
        <button type="submit" disabled={action.busy || !endpointComplete(draft)}>
          Save
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
      <Outcome action={action} />
    </form>
  );
}

function AttemptList({ attempts }: { attempts: readonly WebhookAttempt[] }) {
  if (attempts.length === 0) return <span class="muted">not tried yet</span>;
  return (
    <ol class="attempts">
      {attempts.map((attempt, i) => (
        <li key={i}>
          <Time value={attempt.at} />{' '}
          {attempt.status !== null ? (
            <span class={`nowrap ${attempt.status < 300 ? 'ok' : 'failed'}`}>
              HTTP {attempt.status}
            </span>
          ) : (
            <span class="failed">{attempt.error ?? 'no answer'}</span>
          )}{' '}
          <span class="muted nowrap">{attempt.duration_ms} ms</span>
        </li>
      ))}
    </ol>
  );
}

/** The body sent, indented when it is JSON. */
function payloadText(payload: string): string {
  try {
    return JSON.stringify(JSON.parse(payload), null, 2);
  } catch {
    return payload;
  }
}

function nextAttemptEmpty(status: DeliveryStatus): string {
  return status === 'failed' ? 'none: every attempt failed' : 'none';
}

function DeliveryTable({
  deliveries,
  busy,
  onRetry,
}: {
  deliveries: readonly WebhookDelivery[];
  busy: boolean;
  onRetry: (delivery: WebhookDelivery, button: HTMLElement) => void;
}) {
  const can = useCan();
  return (
    <Table columns={['Event', 'Delivery', 'Status', 'Attempts', 'Next attempt']} actions>
      {deliveries.map((delivery) => (
        <tr key={delivery.id} data-delivery={delivery.id}>
          <td>
            <span class="mono nowrap">{delivery.event_type}</span>
            <details class="payload">
              <summary>Payload</summary>
              <pre>{payloadText(delivery.payload)}</pre>
            </details>
          </td>
          <td>
            <span class="mono nowrap">{delivery.id}</span>
            <div class="muted">
              <Time value={delivery.created_at} />
            </div>
          </td>
          <td>
            <span class={`badge delivery-${delivery.status}`}>
              {DELIVERY_STATUS_WORDS[delivery.status]}
            </span>
          </td>
          <td>
            <AttemptList attempts={delivery.attempts} />
          </td>
          <td>
            <Time value={delivery.next_attempt_at} empty={nextAttemptEmpty(delivery.status)} />
          </td>
          <td class="actions">
            <button
              type="button"
              class="small"
              aria-label={`Retry ${delivery.id}`}
              disabled={busy}
              hidden={!can('retryWebhookDelivery')}
              onClick={(event) => onRetry(delivery, event.currentTarget)}
            >
              Retry
            </button>
          </td>
        </tr>
      ))}
    </Table>
  );
}

type DeliveryFilter = { status: DeliveryStatus | null; page: number };

function Deliveries({
  endpointId,
  deliveries,
  filter,
  onFilter,
}: {
  endpointId: number;
  deliveries: Loaded<DeliveryPage>;
  filter: DeliveryFilter;
  onFilter: (filter: DeliveryFilter) => void;
}) {
  const api = useApi();
  const action = useAction();
  const retry = (delivery: WebhookDelivery) =>
    action.run(async () => {
      const retried = await api.call('retryWebhookDelivery', {
        params: { id: endpointId, delivery_id: delivery.id },
      });
      deliveries.reload();
      return `Trying ${retried.id} again now; its attempt is listed below once made.`;
    });
  return (
    <section aria-labelledby="deliveries-heading" class="panel">
      <div class="title-row">
        <h2 id="deliveries-heading">Deliveries</h2>
        <ReloadButton loaded={deliveries} small />
      </div>
      <div class="row">
        <Field label="Status">
          <WordSelect
            name="status"
            none="Every status"
            words={DELIVERY_STATUS_WORDS}
            value={filter.status}
            onChange={(status) => onFilter({ status, page: 1 })}
          />
        </Field>
      </div>
      <Outcome action={action} />
      <LoadView loaded={deliveries} what="the deliveries">
        {(page) =>
          page.deliveries.length === 0 ? (
            <Empty>
              {filter.status === null
                ? 'Nothing has been sent to this endpoint yet.'
                : `No ${DELIVERY_STATUS_WORDS[filter.status].toLowerCase()} delivery.`}
            </Empty>
          ) : (
            <>
              <DeliveryTable
                deliveries={page.deliveries}
                busy={action.busy}
                onRetry={(delivery, button) => void keepingFocus(button, () => retry(delivery))}
              />
              <Pager
                page={page.page}
                perPage={page.per_page}
                total={page.total}
                noun="deliveries"
                onPage={(n) => onFilter({ ...filter, page: n })}
              />
            </>
          )
        }
      </LoadView>
    </section>
  );
}

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
              <Facts endpoint={endpoint} />
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
                <EditForm
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
