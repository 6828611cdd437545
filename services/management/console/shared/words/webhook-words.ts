/**
 * The words of the webhook pages for events and states, and the events a form holds: without
 * JSX, so the unit tests read them too.
 */
import type { WebhookDelivery, WebhookEndpoint } from '../../../../../libs/contracts/index.js';
import { ALL_EVENTS, domainEventTypes } from '../../../../../libs/contracts/bounds.js';

export type EventType = (typeof domainEventTypes)[number];
export type DeliveryStatus = WebhookDelivery['status'];

/** What each domain event says happened (docs/webhooks.md has their data). */
export const EVENT_WORDS: Record<EventType, string> = {
  'license.created': 'A license was issued.',
  'license.updated': "An admin changed a license's status, limit or expiry.",
  'license.expired': 'A license passed its expiry date.',
  'license.grace_started': 'A license passed its expiry date and is in its grace days.',
  'license.renewed': 'A license was renewed.',
  'license.plan_changed': 'A license moved to another plan.',
  'activation.created': 'An identifier was activated.',
  'activation.deleted': 'An activation was removed (deactivated, by an admin, or lapsed).',
  'activation.rejected': 'An activation was refused on a full or expired license.',
  'download.served': 'A package was downloaded.',
  'download.refused': 'A download was refused.',
  'version.published': 'A version was published.',
  'version.rollout_changed': "An admin changed a version's staged rollout.",
  'usage.limit_reached': 'A license used all the uses its plan allows in a period.',
  'trial.started': 'A trial license was issued and its identifier activated.',
  'trial.converted': "A paid license was activated on a trial's identifier, ending the trial.",
};

export const DELIVERY_STATUS_WORDS: Record<DeliveryStatus, string> = {
  pending: 'Pending',
  delivered: 'Delivered',
  failed: 'Failed',
};

/** What the endpoint's state is, with why it is disabled. */
export function stateWords(endpoint: Pick<WebhookEndpoint, 'enabled' | 'disabled_reason'>) {
  if (endpoint.enabled) return 'enabled';
  switch (endpoint.disabled_reason) {
    case 'failing':
      return 'disabled: every delivery failed for 5 days';
    case 'admin':
      return 'disabled by an admin';
    default:
      return 'disabled';
  }
}

/** The events as a form holds them: every event (`*`), or those ticked. */
export interface EventsDraft {
  all: boolean;
  chosen: readonly EventType[];
}

export const NO_EVENTS: EventsDraft = { all: false, chosen: [] };

export function eventsDraftOf(events: readonly string[]): EventsDraft {
  return {
    all: events.includes(ALL_EVENTS),
    chosen: domainEventTypes.filter((type) => events.includes(type)),
  };
}

/** What the API takes: `["*"]`, or the ticked events in the order they are listed. */
export function eventsBody(draft: EventsDraft): (EventType | typeof ALL_EVENTS)[] {
  return draft.all ? [ALL_EVENTS] : domainEventTypes.filter((type) => draft.chosen.includes(type));
}

export const hasEvents = (draft: EventsDraft) => draft.all || draft.chosen.length > 0;

/** What the add and edit forms hold of an endpoint. */
export interface EndpointDraft {
  url: string;
  events: EventsDraft;
  description: string;
}

export const EMPTY_ENDPOINT: EndpointDraft = { url: '', events: NO_EVENTS, description: '' };

export function endpointDraftOf(endpoint: WebhookEndpoint): EndpointDraft {
  return {
    url: endpoint.url,
    events: eventsDraftOf(endpoint.events),
    description: endpoint.description ?? '',
  };
}

/** The body of a POST or PATCH: trimmed, an empty description none. */
export function endpointBody(draft: EndpointDraft) {
  const description = draft.description.trim();
  return {
    url: draft.url.trim(),
    events: eventsBody(draft.events),
    description: description === '' ? null : description,
  };
}

/** Whether the form can be sent: a URL and at least one event. */
export const endpointComplete = (draft: EndpointDraft) =>
  draft.url.trim() !== '' && hasEvents(draft.events);
