/** What the webhook pages share: an endpoint's state and events, the events field, the secret. */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
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

/**
 * A signing secret, shown once: when the endpoint is made or its secret replaced. It lives in
 * this component's state only, never in the history entry or storage, so a reload or a move to
 * another page forgets it. Focus moves to it, so a keyboard or screen reader meets it first.
 */
export function SecretNotice({
  secret,
  title,
  onDone,
  children,
  noun = 'secret',
}: {
  secret: string;
  title: string;
  onDone: () => void;
  /** What to do with it; unless said, a webhook signing secret's use. */
  children?: ComponentChildren;
  noun?: string;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  const value = useRef<HTMLElement>(null);
  const [copied, setCopied] = useState<string | null>(null);
  useEffect(() => heading.current?.focus(), [secret]);
  const selectSecret = () => {
    const element = value.current;
    const selection = getSelection();
    if (element === null || selection === null) return;
    const range = document.createRange();
    range.selectNodeContents(element);
    selection.removeAllRanges();
    selection.addRange(range);
  };
  const copy = async () => {
    try {
      // Only in a secure context (https, or this machine): elsewhere the text is selected.
      if (navigator.clipboard === undefined) throw new Error('no clipboard');
      await navigator.clipboard.writeText(secret);
      setCopied('Copied to the clipboard.');
    } catch {
      selectSecret();
      setCopied('The browser did not let the page copy it: it is selected, copy it yourself.');
    }
  };
  return (
    <section class="panel secret" aria-labelledby="secret-heading">
      <h2 id="secret-heading" ref={heading} tabIndex={-1}>
        {title}
      </h2>
      {children ?? (
        <p>
          Give it to the receiver: it checks the <span class="mono">webhook-signature</span> header
          of every delivery with it.
        </p>
      )}
      <div class="secret-row">
        <code class="mono secret-value" ref={value} data-secret>
          {secret}
        </code>
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
      </div>
      {copied !== null && (
        <p class="muted" role="status">
          {copied}
        </p>
      )}
      <p class="warning">This {noun} will not be shown again: copy it now.</p>
      <button type="button" class="secondary" onClick={onDone}>
        I have copied it
      </button>
    </section>
  );
}
