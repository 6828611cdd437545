/** What the webhook pages share: an endpoint's state and events, and its fields. */
import type { WebhookEndpoint } from '../../../../../libs/contracts/index.js';
import { ALL_EVENTS, domainEventTypes } from '../../../../../libs/contracts/bounds.js';
import { Field } from '../../../../../libs/web/ui/components.js';
import { Time } from '../../../../../libs/web/ui/time.js';
import { Check, Input } from './fields.js';
import {
  EVENT_WORDS,
  stateWords,
  type EndpointDraft,
  type EventType,
  type EventsDraft,
} from '../words/webhook-words.js';

/** Enabled or disabled (and why), and since when every attempt fails, if it does. */
export function EndpointState({ endpoint }: { endpoint: WebhookEndpoint }) {
  return (
    <>
      <span class={`badge ${endpoint.enabled ? 'webhook-enabled' : 'webhook-disabled'}`}>
        {stateWords(endpoint)}
      </span>
      {endpoint.failing_since !== null && (
        <div class="failed">
          failing since <Time value={endpoint.failing_since} />
        </div>
      )}
    </>
  );
}

/** The events an endpoint receives, as a list. */
export function EventList({ events }: { events: readonly string[] }) {
  if (events.includes(ALL_EVENTS)) return <>All events</>;
  return (
    <ul class="plain">
      {events.map((event) => (
        <li key={event} class="mono">
          {event}
        </li>
      ))}
    </ul>
  );
}

/** The events an endpoint receives: all of them, or those ticked, each with what it means. */
export function EventsField({
  draft,
  onDraft,
  name,
}: {
  draft: EventsDraft;
  onDraft: (draft: EventsDraft) => void;
  /** Names the fieldset's hint, which must be unique on the page. */
  name: string;
}) {
  const hintId = `${name}-events-hint`;
  const toggle = (type: EventType, on: boolean) =>
    onDraft({
      ...draft,
      chosen: on ? [...draft.chosen, type] : draft.chosen.filter((chosen) => chosen !== type),
    });
  return (
    <fieldset class="events" aria-describedby={hintId}>
      <legend>Events</legend>
      <p class="hint" id={hintId}>
        Tick the events this endpoint receives, or all of them (those added later too).
      </p>
      <Check
        label="All events"
        checked={draft.all}
        onChange={(all) => onDraft({ ...draft, all })}
      />
      <div class="event-choices">
        {domainEventTypes.map((type) => (
          <label key={type} class="check">
            <input
              type="checkbox"
              name="events"
              value={type}
              checked={draft.all || draft.chosen.includes(type)}
              disabled={draft.all}
              onChange={(event) => toggle(type, event.currentTarget.checked)}
            />
            <span>
              <span class="mono">{type}</span> <span class="muted">{EVENT_WORDS[type]}</span>
            </span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

/** An endpoint's URL, events and description: the fields of the add and edit forms. */
export function EndpointFields({
  name,
  draft,
  onDraft,
  urlHint,
  urlPlaceholder,
}: {
  /** Names the events' hint, which must be unique on the page. */
  name: string;
  draft: EndpointDraft;
  onDraft: (draft: EndpointDraft) => void;
  urlHint?: string;
  urlPlaceholder?: string;
}) {
  return (
    <>
      <Field label="URL" hint={urlHint}>
        <Input
          type="url"
          name="url"
          required
          maxLength={2048}
          autocomplete="off"
          spellcheck={false}
          placeholder={urlPlaceholder}
          value={draft.url}
          onValue={(url) => onDraft({ ...draft, url })}
        />
      </Field>
      <EventsField
        name={name}
        draft={draft.events}
        onDraft={(events) => onDraft({ ...draft, events })}
      />
      <Field label="Description" hint="Optional: what receives these events.">
        <Input
          name="description"
          maxLength={255}
          autocomplete="off"
          value={draft.description}
          onValue={(description) => onDraft({ ...draft, description })}
        />
      </Field>
    </>
  );
}
