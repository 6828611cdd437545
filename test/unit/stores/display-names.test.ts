import { displayName } from '../../../services/stores/display-names.js';
import { readStoreEvent } from '../../../services/stores/readers/read-store-event.js';
import { editedFixture } from '../../support/store-fixtures.js';
import { SECRET, signedHeaders } from '../../support/store-service-harness.js';

describe("Stores: a buyer's name is kept as it is shown, without control or format characters", () => {
  test('a control character or line break becomes a space: NUL, CR LF, tab, U+2028', () => {
    expect(displayName('Ada\u0000Lovelace')).toBe('Ada Lovelace');
    expect(displayName('Ada\r\nBcc: eve@example.com')).toBe('Ada Bcc: eve@example.com');
    expect(displayName('Ada\tLovelace\u2028\u0007')).toBe('Ada Lovelace');
    expect(displayName('Ada\u0085Lovelace\u009b')).toBe('Ada Lovelace');
  });

  test('a bidi or other format character is removed: U+202E, U+2066, U+200B, U+00AD, U+FEFF', () => {
    expect(displayName('Ada \u202Eecalevol\u202C')).toBe('Ada ecalevol');
    expect(displayName('\u2066Ada\u2069 Love\u00ADlace\u200B\uFEFF')).toBe('Ada Lovelace');
    // A lone surrogate cannot be stored as UTF-8: it is left out as well.
    expect(displayName('Ada\uD800 Lovelace')).toBe('Ada Lovelace');
  });

  test('an ordinary name is kept as it is; nothing left is no name; a long one is cut at 255 characters', () => {
    expect(displayName('Zoë O’Brien-Ådahl 李小龍 😀')).toBe('Zoë O’Brien-Ådahl 李小龍 😀');
    expect(displayName('  Ada   Lovelace ')).toBe('Ada Lovelace');
    expect(displayName('\u0000\u202E\r\n ')).toBeNull();
    expect(displayName(null)).toBeNull();
    const long = displayName('😀'.repeat(300))!;
    expect(Array.from(long)).toHaveLength(255);
    expect(long.isWellFormed()).toBe(true);
  });
});

describe("Stores: each store's event is read with its buyer's name kept that way, the address as sent", () => {
  const name = 'Ada\u0000\u202E Lovelace\r\n';
  const cases = [
    ['stripe', 'invoice-paid-subscription-create', ['data.object.customer_name', name]],
    [
      'paddle',
      'transaction-completed-order',
      ['data.customer', { email: 'ada@example.com', name }],
    ],
    ['lemonsqueezy', 'order_created', ['data.attributes.user_name', name]],
    ['woocommerce', 'order_processing', ['billing.first_name', name]],
  ] as const;

  test.each(cases)('%s', (provider, fixture, change) => {
    const body = editedFixture(provider, fixture, [change[0], change[1]]);
    const reading = readStoreEvent(provider, {
      body,
      headers: signedHeaders(provider, body, new Date(), SECRET),
    });
    expect(reading.ok).toBe(true);
    const customer = reading.ok ? reading.event.customer : null;
    expect(customer?.name).toBe(
      provider === 'woocommerce' ? 'Ada Lovelace Hopper' : 'Ada Lovelace',
    );
    expect(customer?.email).toMatch(/@example\.com$/);
  });
});
