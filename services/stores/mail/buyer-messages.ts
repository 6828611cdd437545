import type { ActivationType } from '../../../libs/contracts/index.js';
import { displayName } from '../display-names.js';
import { markup, type SafeHtml } from './html.js';

/**
 * The buyer's e-mail (docs/stores.md: The buyer's e-mail): what a store's event did to their
 * license, told to the one person it was sold to. Built from a letter of paragraphs, written out
 * once as plain text and once as HTML, so that both say the same things; nothing in it comes
 * from anyone but the recipient, the store and the license.
 */
export type BuyerMoment = 'created' | 'renewed' | 'suspended' | 'cancelled';

export interface BuyerMessageInput {
  /** STORE_NAME, or the mail's default name when it is empty (mail-settings.ts). */
  readonly storeName: string;
  readonly buyer: { readonly email: string; readonly name: string | null };
  readonly licenseKey: string;
  readonly productName: string;
  /** What the license allows. */
  readonly plan: {
    readonly name: string;
    /** 0: unlimited. */
    readonly activationLimit: number;
    readonly activationType: ActivationType;
    readonly entitlements: readonly string[];
  };
  /** ISO 8601; null: the license never expires. */
  readonly expiresAt: string | null;
  /** The customer portal's page (`{PUBLIC_URL}/portal`): it asks for the key, the link has none. */
  readonly portalUrl: string;
}

export interface BuyerMessage {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

type Paragraph =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'facts'; readonly rows: ReadonlyArray<readonly [string, string]> }
  | {
      readonly kind: 'link';
      readonly before: string;
      readonly url: string;
      readonly after: string;
    };

interface Letter {
  readonly subject: string;
  readonly paragraphs: readonly Paragraph[];
}

/** The same nouns as the customer portal's (one activation, several). */
const ACTIVATION_NOUNS: Record<ActivationType, readonly [string, string]> = {
  domain: ['website', 'websites'],
  device: ['device', 'devices'],
  seat: ['user', 'users'],
  instance: ['instance', 'instances'],
};

/**
 * Names come from admins and stores: shown as a store's buyer name is kept (`displayName`), so a
 * line break in one is a space and cannot add a header, and a bidi override reverses nothing.
 */
function oneLine(value: string): string {
  return displayName(value) ?? '';
}

export function activationsWording(limit: number, type: ActivationType): string {
  const [one, many] = ACTIVATION_NOUNS[type];
  if (limit === 0) return `unlimited ${many}`;
  return limit === 1 ? `1 ${one}` : `up to ${limit} ${many}`;
}

/** A date and time in UTC, the same for every reader whatever their locale. */
export function expiryWording(expiresAt: string | null): string {
  if (expiresAt === null) return 'never';
  const date = new Date(expiresAt);
  if (Number.isNaN(date.getTime())) throw new RangeError(`not an ISO date: ${expiresAt}`);
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function intro(moment: BuyerMoment, product: string, store: string): Letter {
  switch (moment) {
    case 'created':
      return {
        subject: `Your license key for ${product}`,
        paragraphs: [text(`Thank you for your purchase. Here is your license for ${product}.`)],
      };
    case 'renewed':
      return {
        subject: `Your license for ${product} is renewed`,
        paragraphs: [text(`Thank you: your license for ${product} is renewed.`)],
      };
    case 'suspended':
      return {
        subject: `Your license for ${product} is suspended`,
        paragraphs: [
          text(
            `Your license for ${product} is suspended because a payment for it did not go ` +
              `through. It works again as soon as the payment is made with ${store}; until ` +
              'then, the key activates nothing and your software may report it as not valid.',
          ),
        ],
      };
    case 'cancelled':
      return {
        subject: `Your license for ${product} is cancelled`,
        paragraphs: [
          text(
            `Your subscription to ${product} has ended, and its license is cancelled: the key ` +
              'activates nothing and your software may report it as not valid. To use ' +
              `${product} again, buy it again from ${store}.`,
          ),
        ],
      };
  }
}

const text = (value: string): Paragraph => ({ kind: 'text', text: value });

function letter(moment: BuyerMoment, input: BuyerMessageInput): Letter {
  const store = oneLine(input.storeName);
  const product = oneLine(input.productName);
  const name = input.buyer.name === null ? '' : oneLine(input.buyer.name);
  const { plan } = input;
  const opening = intro(moment, product, store);
  const facts: Array<readonly [string, string]> = [
    ['License key', input.licenseKey],
    ['Product', product],
    ['Plan', oneLine(plan.name)],
    ['Activations', activationsWording(plan.activationLimit, plan.activationType)],
  ];
  if (plan.entitlements.length > 0) {
    facts.push(['Includes', plan.entitlements.map(oneLine).join(', ')]);
  }
  facts.push(['Expires', expiryWording(input.expiresAt)]);
  const [, many] = ACTIVATION_NOUNS[plan.activationType];
  return {
    subject: `${opening.subject} (${store})`,
    paragraphs: [
      text(name === '' ? 'Hello,' : `Hello ${name},`),
      ...opening.paragraphs,
      { kind: 'facts', rows: facts },
      {
        kind: 'link',
        before: `See your license and the ${many} using it in the customer portal: `,
        url: input.portalUrl,
        after: ' (it asks for your license key).',
      },
      text('Keep this e-mail: your license key is your proof of purchase.'),
      text(`${store}. Sent to ${input.buyer.email}, who bought ${product}.`),
    ],
  };
}

function plainText(paragraphs: readonly Paragraph[]): string {
  const blocks = paragraphs.map((paragraph) => {
    switch (paragraph.kind) {
      case 'text':
        return paragraph.text;
      case 'facts':
        return paragraph.rows.map(([label, value]) => `${label}: ${value}`).join('\n');
      case 'link':
        return `${paragraph.before}${paragraph.url}${paragraph.after}`;
    }
  });
  return `${blocks.join('\n\n')}\n`;
}

function htmlBody(subject: string, paragraphs: readonly Paragraph[]): SafeHtml {
  const blocks = paragraphs.map((paragraph) => {
    switch (paragraph.kind) {
      case 'text':
        return markup`<p>${paragraph.text}</p>\n`;
      case 'facts':
        return markup`<table>\n${paragraph.rows.map(
          ([label, value]) => markup`<tr><th align="left">${label}:</th> <td>${value}</td></tr>\n`,
        )}</table>\n`;
      case 'link': {
        const { before, url, after } = paragraph;
        return markup`<p>${before}<a href="${url}">${url}</a>${after}</p>\n`;
      }
    }
  });
  return markup`<!doctype html>
<html><head><meta charset="utf-8"><title>${subject}</title></head>
<body>
${blocks}</body></html>
`;
}

/** The message of one moment of a license, to its buyer. */
export function buyerMessage(moment: BuyerMoment, input: BuyerMessageInput): BuyerMessage {
  // Only a web address is linked: a `javascript:` one would run on a click, escaped or not.
  if (!/^https?:\/\//i.test(input.portalUrl)) {
    throw new RangeError(`the portal's address is not http(s): ${input.portalUrl}`);
  }
  const { subject, paragraphs } = letter(moment, input);
  return {
    to: input.buyer.email,
    subject,
    text: plainText(paragraphs),
    html: htmlBody(subject, paragraphs).value,
  };
}
