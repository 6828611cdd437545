import type { WebhookEndpoint } from '../../../../../libs/contracts/index.js';
import { Time } from '../../../../../libs/web/ui/time.js';
import { EndpointState, EventList } from '../../shared/components/webhook-parts.js';

/** What the endpoint is: its URL, events, state and dates. */
export function EndpointFacts({ endpoint }: { endpoint: WebhookEndpoint }) {
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
