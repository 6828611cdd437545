import {
  CreateWebhookRequest,
  MAX_WEBHOOK_ENDPOINTS,
  WebhookEvents,
  domainEventTypes,
} from '../../libs/contracts/index.js';
import * as bounds from '../../libs/contracts/bounds.js';
import {
  EMPTY_ENDPOINT,
  NO_EVENTS,
  endpointBody,
  endpointComplete,
  eventsBody,
  eventsDraftOf,
  hasEvents,
  stateWords,
} from '../../services/management/console/shared/words/webhook-words.js';

describe("the console's webhook words and the events its forms send", () => {
  test('the event types and the endpoint bound the console reads are the API’s own', () => {
    expect(bounds.domainEventTypes).toBe(domainEventTypes);
    expect(bounds.MAX_WEBHOOK_ENDPOINTS).toBe(MAX_WEBHOOK_ENDPOINTS);
    for (const type of bounds.domainEventTypes) {
      expect(WebhookEvents.safeParse([type]).success).toBe(true);
    }
  });

  test('the events of a form: all of them as `*`, or those ticked in the order listed', () => {
    expect(eventsBody({ all: true, chosen: ['license.created'] })).toEqual(['*']);
    expect(eventsBody({ all: false, chosen: ['version.published', 'license.created'] })).toEqual([
      'license.created',
      'version.published',
    ]);
    expect(hasEvents(NO_EVENTS)).toBe(false);
    expect(hasEvents({ all: true, chosen: [] })).toBe(true);
    for (const events of [['*'], ['license.expired', 'activation.deleted']]) {
      const body = eventsBody(eventsDraftOf(events));
      expect(body).toEqual(events);
      expect(
        CreateWebhookRequest.safeParse({ url: 'https://hooks.example.com/', events: body }).success,
      ).toBe(true);
    }
  });

  test('an endpoint’s state says why it is disabled', () => {
    expect(stateWords({ enabled: true, disabled_reason: null })).toBe('enabled');
    expect(stateWords({ enabled: false, disabled_reason: 'admin' })).toBe('disabled by an admin');
    expect(stateWords({ enabled: false, disabled_reason: 'failing' })).toBe(
      'disabled: every delivery failed for 5 days',
    );
  });
});

describe('the endpoint forms', () => {
  test('send the URL and description trimmed, an empty description as none', () => {
    expect(
      endpointBody({
        url: '  https://hooks.example/in ',
        events: { all: false, chosen: ['license.created'] },
        description: '   ',
      }),
    ).toEqual({ url: 'https://hooks.example/in', events: ['license.created'], description: null });
  });

  test('can be sent once they have a URL and an event', () => {
    expect(endpointComplete(EMPTY_ENDPOINT)).toBe(false);
    expect(endpointComplete({ ...EMPTY_ENDPOINT, url: 'https://hooks.example/' })).toBe(false);
    expect(
      endpointComplete({
        url: 'https://hooks.example/',
        events: { all: true, chosen: [] },
        description: '',
      }),
    ).toBe(true);
  });
});
