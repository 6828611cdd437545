/** The events the stores delivered, with what applying each did; a failed or unmapped one applied again. */
import { useState } from 'preact/hooks';
import type { StoreEventOutcome } from '../../../../../libs/contracts/stores/received-store-events.js';
import { Empty, Field, Table } from '../../../../../libs/web/ui/components.js';
import { Time } from '../../../../../libs/web/ui/time.js';
import { useApi, type Answer } from '../../shared/api/admin-api.js';
import { Pager, ReloadButton } from '../../shared/components/controls.js';
import { IdSelect, WordSelect } from '../../shared/components/fields.js';
import { LoadView, Outcome } from '../../shared/components/notices.js';
import { useAction, useLoad } from '../../shared/hooks/hooks.js';
import { useCan } from '../../shared/hooks/permissions.js';
import { OUTCOME_WORDS, RETRYABLE_OUTCOMES } from '../../shared/words/store-words.js';
import { keepingFocus } from '../../shared/lib/keeping-focus.js';
import type { StoreConnection } from './new-connection-form.js';

type StoreEvent = Answer<'getStoreEvent'>;

const PER_PAGE = 20;

interface EventFilter {
  connectionId: number | null;
  outcome: StoreEventOutcome | null;
  page: number;
}

/** What the event was about: its order or subscription, and the store ids it named. */
function About({ event }: { event: StoreEvent }) {
  return (
    <ul class="plain">
      {event.order_id !== null && (
        <li>
          Order <span class="mono">{event.order_id}</span>
        </li>
      )}
      {event.subscription_id !== null && (
        <li>
          Subscription <span class="mono">{event.subscription_id}</span>
        </li>
      )}
      {event.external_ids.length > 0 && (
        <li>
          Ids <span class="mono">{event.external_ids.join(', ')}</span>
        </li>
      )}
    </ul>
  );
}

export function StoreEvents({ connections }: { connections: readonly StoreConnection[] }) {
  const api = useApi();
  const can = useCan();
  const [filter, setFilter] = useState<EventFilter>({ connectionId: null, outcome: null, page: 1 });
  const events = useLoad(
    () =>
      api.call('listStoreEvents', {
        query: {
          connection_id: filter.connectionId,
          outcome: filter.outcome,
          page: filter.page,
          per_page: PER_PAGE,
        },
      }),
    [api, filter],
  );
  const action = useAction();
  const nameOf = (id: number) =>
    connections.find((connection) => connection.id === id)?.name ?? `Connection ${id} (deleted)`;
  const applyAgain = (event: StoreEvent) =>
    action.run(async () => {
      const again = await api.call('applyStoreEventAgain', { params: { id: event.id } });
      events.reload();
      return `${again.type} (${again.event_id}) is pending again; Refresh shows what applying it did.`;
    });
  return (
    <section aria-labelledby="store-events-heading" class="panel">
      <div class="title-row">
        <h2 id="store-events-heading">Received events</h2>
        <ReloadButton loaded={events} small />
      </div>
      <div class="row">
        <Field label="Connection">
          <IdSelect
            name="connection_id"
            none="Every connection"
            choices={connections.map(({ id, name }) => ({ id, text: name }))}
            value={filter.connectionId}
            onChange={(connectionId) => setFilter({ ...filter, connectionId, page: 1 })}
          />
        </Field>
        <Field label="Outcome">
          <WordSelect
            name="outcome"
            none="Every outcome"
            words={OUTCOME_WORDS}
            value={filter.outcome}
            onChange={(outcome) => setFilter({ ...filter, outcome, page: 1 })}
          />
        </Field>
      </div>
      <Outcome action={action} />
      <LoadView loaded={events} what="the received events">
        {(page) =>
          page.events.length === 0 ? (
            <Empty>No event received{filter.outcome === null ? '' : ' with this outcome'}.</Empty>
          ) : (
            <>
              <Table
                columns={['Received', 'Connection', 'Event', 'About', 'Outcome', 'License']}
                actions
              >
                {page.events.map((event) => (
                  <tr key={event.id} data-store-event={event.id}>
                    <td>
                      <Time value={event.received_at} />
                    </td>
                    <td>{nameOf(event.connection_id)}</td>
                    <td>
                      <span class="mono">{event.type}</span>
                      <div class="muted mono">{event.event_id}</div>
                    </td>
                    <td>
                      <About event={event} />
                    </td>
                    <td>
                      <span class={`badge store-${event.outcome}`}>
                        {OUTCOME_WORDS[event.outcome]}
                      </span>
                      {event.detail !== null && <div class="muted">{event.detail}</div>}
                      <div class="muted">
                        {event.attempts} attempt{event.attempts === 1 ? '' : 's'}
                      </div>
                    </td>
                    <td class="mono">{event.license_key ?? <span class="muted">none</span>}</td>
                    <td class="actions">
                      {RETRYABLE_OUTCOMES.includes(event.outcome) &&
                        can('applyStoreEventAgain') && (
                          <button
                            type="button"
                            class="secondary small"
                            aria-label={`Apply again ${event.type} ${event.event_id}`}
                            disabled={action.busy}
                            onClick={(click) =>
                              void keepingFocus(click.currentTarget, () => applyAgain(event))
                            }
                          >
                            Apply again
                          </button>
                        )}
                    </td>
                  </tr>
                ))}
              </Table>
              <Pager
                page={page.page}
                perPage={page.per_page}
                total={page.total}
                noun="events"
                onPage={(n) => setFilter({ ...filter, page: n })}
              />
            </>
          )
        }
      </LoadView>
    </section>
  );
}
