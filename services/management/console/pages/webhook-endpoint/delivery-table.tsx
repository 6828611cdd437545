import type { WebhookAttempt, WebhookDelivery } from '../../../../../libs/contracts/index.js';
import { Table } from '../../../../../libs/web/ui/components.js';
import { Time } from '../../../../../libs/web/ui/time.js';
import { DELIVERY_STATUS_WORDS, type DeliveryStatus } from '../../shared/words/webhook-words.js';
import { useCan } from '../../shared/hooks/permissions.js';

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

/** The deliveries of a page: the event and its payload, the status and every attempt made. */
export function DeliveryTable({
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
