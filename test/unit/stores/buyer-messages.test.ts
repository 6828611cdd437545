import {
  buyerMessage,
  type BuyerMessageInput,
  type BuyerMoment,
} from '../../../services/stores/mail/buyer-messages.js';
import { escapeHtml } from '../../../services/stores/mail/html.js';

/** docs/stores.md: The buyer's e-mail. */

const MOMENTS: BuyerMoment[] = ['created', 'renewed', 'suspended', 'cancelled'];

const input: BuyerMessageInput = {
  storeName: 'Plugin Shop',
  buyer: { email: 'ann@buyer.example', name: 'Ann Buyer' },
  licenseKey: 'ABCD-EFGH-IJKL-MNOP',
  productName: 'Gallery Pro',
  plan: {
    name: 'Agency',
    activationLimit: 5,
    activationType: 'domain',
    entitlements: ['priority-support', 'white-label'],
  },
  expiresAt: '2027-03-31T12:00:00.000Z',
  portalUrl: 'https://licensing.shop.example/portal',
};

const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
};

/** What the HTML says, as a reader sees it: tags gone, entities read, spaces collapsed. */
function htmlWords(html: string): string {
  return html
    .replace(/<title>.*?<\/title>/s, '')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(?:amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity]!)
    .replace(/\s+/g, ' ')
    .trim();
}
const textWords = (text: string) => text.replace(/\s+/g, ' ').trim();

describe("what each moment's message tells its buyer", () => {
  test.each(MOMENTS)(
    '%s: the key, product, plan, limit, entitlements, expiry and the portal link, in text and HTML',
    (moment) => {
      const message = buyerMessage(moment, input);
      expect(message.to).toBe('ann@buyer.example');
      for (const body of [message.text, htmlWords(message.html)]) {
        expect(body).toContain('License key: ABCD-EFGH-IJKL-MNOP');
        expect(body).toContain('Product: Gallery Pro');
        expect(body).toContain('Plan: Agency');
        expect(body).toContain('Activations: up to 5 websites');
        expect(body).toContain('Includes: priority-support, white-label');
        expect(body).toContain('Expires: 2027-03-31 12:00 UTC');
        expect(body).toContain('https://licensing.shop.example/portal');
        expect(body).toContain('Hello Ann Buyer,');
      }
      expect(message.html).toContain('<a href="https://licensing.shop.example/portal">');
    },
  );

  test('each moment has its own subject, naming the product and the store', () => {
    const subjects = MOMENTS.map((moment) => buyerMessage(moment, input).subject);
    expect(subjects).toEqual([
      'Your license key for Gallery Pro (Plugin Shop)',
      'Your license for Gallery Pro is renewed (Plugin Shop)',
      'Your license for Gallery Pro is suspended (Plugin Shop)',
      'Your license for Gallery Pro is cancelled (Plugin Shop)',
    ]);
  });

  test('a suspended license says why and how it works again; a cancelled one that it ended', () => {
    expect(buyerMessage('suspended', input).text).toMatch(
      /payment for it did not go through\. It works again as soon as the payment is made/,
    );
    expect(buyerMessage('cancelled', input).text).toMatch(
      /has ended, and its license is cancelled/,
    );
  });

  test.each(MOMENTS)('%s: the plain text and the HTML say the same things', (moment) => {
    const message = buyerMessage(moment, input);
    expect(htmlWords(message.html)).toBe(textWords(message.text));
  });

  test('an activation limit of 0 reads as unlimited, and 1 as one of its kind', () => {
    const unlimited = buyerMessage('created', {
      ...input,
      plan: { ...input.plan, activationLimit: 0, activationType: 'device' },
    });
    expect(unlimited.text).toContain('Activations: unlimited devices');
    expect(htmlWords(unlimited.html)).toContain('Activations: unlimited devices');
    const one = buyerMessage('created', {
      ...input,
      plan: { ...input.plan, activationLimit: 1, activationType: 'seat' },
    });
    expect(one.text).toContain('Activations: 1 user\n');
  });

  test('a license without an expiry reads as never expiring', () => {
    const message = buyerMessage('created', { ...input, expiresAt: null });
    expect(message.text).toContain('Expires: never');
    expect(htmlWords(message.html)).toContain('Expires: never');
  });

  test('a plan without entitlements has no Includes line', () => {
    const message = buyerMessage('created', {
      ...input,
      plan: { ...input.plan, entitlements: [] },
    });
    expect(message.text).not.toContain('Includes');
    expect(message.html).not.toContain('Includes');
  });

  test('a buyer without a name is greeted without one', () => {
    const message = buyerMessage('renewed', { ...input, buyer: { ...input.buyer, name: null } });
    expect(message.text).toMatch(/^Hello,\n/);
    expect(htmlWords(message.html)).toMatch(/^Hello, /);
  });

  test('the portal link carries no key: the portal asks for it, and a URL would keep it in logs', () => {
    for (const moment of MOMENTS) {
      const { text, html } = buyerMessage(moment, input);
      const links = [...html.matchAll(/href="([^"]*)"/g)].map((match) => match[1]);
      expect(links).toEqual(['https://licensing.shop.example/portal']);
      expect(text).toContain(
        'https://licensing.shop.example/portal (it asks for your license key)',
      );
    }
  });
});

describe('the HTML is safe by construction: every value escaped by one function', () => {
  const hostile: BuyerMessageInput = {
    ...input,
    storeName: 'Shop & "Co"',
    buyer: { email: 'ann@buyer.example', name: '<script>alert("name")</script>' },
    productName: 'Gallery "Pro" <script>alert(1)</script>',
    plan: { ...input.plan, name: "O'Plan <b>", entitlements: ['<img src=x onerror=alert(1)>'] },
    portalUrl: 'https://licensing.shop.example/portal?a="><script>x</script>',
  };

  test.each(MOMENTS)('%s: a <script> or a quote in a name is text, never markup', (moment) => {
    const message = buyerMessage(moment, hostile);
    expect(message.html).not.toMatch(/<script|<img|<b>/i);
    expect(message.html).toContain(escapeHtml('Gallery "Pro" <script>alert(1)</script>'));
    expect(message.html).toContain(escapeHtml('<script>alert("name")</script>'));
    expect(message.html).toContain('href="https://licensing.shop.example/portal?a=&quot;&gt;');
    // Read back, the HTML says exactly what the text says.
    expect(htmlWords(message.html)).toBe(textWords(message.text));
  });

  test('a line break in a name cannot add a line to the subject', () => {
    const message = buyerMessage('created', {
      ...input,
      productName: 'Gallery\r\nBcc: x@y.example',
    });
    expect(message.subject).toBe('Your license key for Gallery Bcc: x@y.example (Plugin Shop)');
  });

  test('a bidi override or zero-width character in a name is left out of the subject and the text', () => {
    const message = buyerMessage('created', {
      ...input,
      productName: 'Gallery \u202Eorp\u202C',
      buyer: { ...input.buyer, name: 'Ada\u200B\u0000Lovelace' },
    });
    expect(message.subject).toBe('Your license key for Gallery orp (Plugin Shop)');
    expect(message.text).toMatch(/^Hello Ada Lovelace,\n/);
    for (const hidden of ['\u202E', '\u202C', '\u200B', '\u0000']) {
      expect(message.text).not.toContain(hidden);
    }
  });

  test('a portal address that is not http(s) is refused, never linked', () => {
    expect(() => buyerMessage('created', { ...input, portalUrl: 'javascript:alert(1)' })).toThrow(
      /not http\(s\)/,
    );
  });
});
