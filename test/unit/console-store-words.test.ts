import {
  retryableStoreEventOutcomes,
  storeEventOutcomes,
} from '../../libs/contracts/stores/received-store-events.js';
import {
  CreateStoreConnectionRequest,
  CreateStoreMappingRequest,
  SigningSecret,
  StoreMode,
  StoreRenewal,
  storeProviders,
} from '../../libs/contracts/stores/store-connections.js';
import {
  EMAIL_WORDS,
  EMPTY_CONNECTION,
  EMPTY_MAPPING,
  MODE_WORDS,
  OUTCOME_WORDS,
  PROVIDER_WORDS,
  RENEWAL_WORDS,
  RETRYABLE_OUTCOMES,
  connectionBody,
  connectionComplete,
  mappingComplete,
  mappingDraftOf,
  mappingTerms,
  missingApiKeyWords,
  secretProblem,
} from '../../services/management/console/shared/words/store-words.js';

describe("the Stores page's words name every value of the API, and only those", () => {
  test('stores, modes, outcomes, renewals, e-mails; Apply again for the outcomes the API retries', () => {
    expect(Object.keys(PROVIDER_WORDS)).toEqual([...storeProviders]);
    expect(Object.keys(MODE_WORDS)).toEqual(StoreMode.options);
    expect(Object.keys(OUTCOME_WORDS)).toEqual([...storeEventOutcomes]);
    expect(Object.keys(RENEWAL_WORDS)).toEqual(StoreRenewal.options);
    expect(Object.keys(EMAIL_WORDS)).toEqual(
      Object.keys(
        CreateStoreConnectionRequest.parse({ ...connectionBody(ready), emails: undefined }).emails,
      ),
    );
    expect(RETRYABLE_OUTCOMES).toEqual([...retryableStoreEventOutcomes]);
  });
});

const ready = {
  ...EMPTY_CONNECTION,
  name: ' Main shop ',
  signingSecret: 'whsec_0123456789abcdef',
};

describe('what the new-connection form sends', () => {
  test('a secret is checked as the API checks it: spaces, line breaks and short text refused', () => {
    for (const text of [
      'whsec_0123456789',
      'whsec_01 23456789',
      'whsec_0123456789\n',
      'short',
      'é'.repeat(9),
    ]) {
      expect([text, secretProblem(text) === null]).toEqual([
        text,
        SigningSecret.safeParse(text).success,
      ]);
    }
  });

  test('the body the API takes: the name trimmed, the secret as pasted, no API key as null', () => {
    expect(connectionComplete(ready)).toBe(true);
    const body = connectionBody(ready);
    expect(body).toEqual({
      name: 'Main shop',
      provider: 'stripe',
      mode: 'live',
      signing_secret: 'whsec_0123456789abcdef',
      api_key: null,
      grace_days: 3,
      emails: { created: true, renewed: true, suspended: true, cancelled: true },
    });
    expect(CreateStoreConnectionRequest.safeParse(body).success).toBe(true);
  });

  test('not sent without a name or secret, with a bad API key, or grace days over 60', () => {
    expect(connectionComplete({ ...ready, name: ' ' })).toBe(false);
    expect(connectionComplete({ ...ready, signingSecret: '' })).toBe(false);
    expect(connectionComplete({ ...ready, apiKey: 'sk live' })).toBe(false);
    expect(connectionComplete({ ...ready, graceDays: '61' })).toBe(false);
    expect(connectionComplete({ ...ready, graceDays: '' })).toBe(false);
  });
});

describe("what a mapping's form sends", () => {
  const draft = { ...EMPTY_MAPPING, externalId: 'price_1', productId: 4, planId: 5 };

  test('a one-off duration in days, or none; what the API takes', () => {
    expect(mappingComplete(draft)).toBe(true);
    expect(mappingTerms(draft)).toEqual({
      product_id: 4,
      plan_id: 5,
      renewal: 'gateway',
      duration_days: null,
    });
    const body = {
      connection_id: 1,
      external_id: 'price_1',
      ...mappingTerms({ ...draft, durationDays: '365' }),
    };
    expect(CreateStoreMappingRequest.parse(body).duration_days).toBe(365);
    expect(
      mappingDraftOf({
        external_id: 'price_1',
        product_id: 4,
        plan_id: 5,
        renewal: 'checkout',
        duration_days: 30,
      }),
    ).toEqual({ ...draft, renewal: 'checkout', durationDays: '30' });
  });

  test('not sent without a product, a plan or an id, or with a duration that is no whole number of days', () => {
    expect(mappingComplete({ ...draft, productId: null })).toBe(false);
    expect(mappingComplete({ ...draft, planId: null })).toBe(false);
    expect(mappingComplete({ ...draft, externalId: 'price 1' })).toBe(false);
    expect(mappingComplete({ ...draft, durationDays: '0' })).toBe(false);
    expect(mappingComplete({ ...draft, durationDays: '1.5' })).toBe(false);
  });
});

describe("a connection's page says what it goes without an API key (docs/stores.md: Console)", () => {
  test('a Paddle connection without a key: its buyers get no e-mail until one is set', () => {
    expect(missingApiKeyWords({ provider: 'paddle', api_key_set: false })).toMatch(
      /^Paddle buyers get no e-mail until an API key is set/,
    );
  });

  test('with a key, or of another store, it says nothing', () => {
    expect(missingApiKeyWords({ provider: 'paddle', api_key_set: true })).toBeNull();
    for (const provider of storeProviders.filter((p) => p !== 'paddle')) {
      expect(missingApiKeyWords({ provider, api_key_set: false })).toBeNull();
    }
  });
});
