/**
 * The customer portal's words: written for the holder of a license, who sees their own license
 * and needs to know what to do next; what the API's codes mean to them. Plain text (no markup),
 * so the unit tests read them as the customer does.
 */
import type { ActivationType, PortalLicense } from '../../../libs/contracts/index.js';
import { ApiError } from '../../../libs/web/ui/api.js';
import { durationWords } from '../../../libs/web/ui/words.js';
import type { PortalSettings } from '../portal-settings.js';

/** What an activation of each type is to the customer, one and many. */
const THINGS: Record<ActivationType, [string, string]> = {
  domain: ['website', 'websites'],
  device: ['device', 'devices'],
  seat: ['user', 'users'],
  instance: ['instance', 'instances'],
};

export const thing = (type: ActivationType) => THINGS[type][0];
export const things = (type: ActivationType) => THINGS[type][1];

/**
 * A refused look-up in the customer's words. The portal shows a license whatever its status, so
 * LICENSE_INVALID here means only that no license has the key.
 */
export function lookUpFailure(error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  switch (error.code) {
    case 'LICENSE_INVALID':
      return error.saying(
        'No license has this key. Check that it is the whole key you were given with your ' +
          'purchase, with no other characters.',
      );
    case 'INVALID_REQUEST':
      return error.saying(
        'Enter your license key as it was given to you (at most 255 characters).',
      );
    case 'RATE_LIMITED':
      return error.saying(
        'Too many look-ups from here in a short time: wait a minute and try again.',
      );
    default:
      return error;
  }
}

/**
 * Whether the license can take activations now: active and not past its expiry date, or in its
 * plan's grace, which answers as active (docs/api-decisions.md, "Expiry strategies").
 */
function usable(license: PortalLicense, now: number): boolean {
  if (license.status !== 'active') return false;
  if (license.in_grace) return true;
  return license.expires_at === null || Date.parse(license.expires_at) > now;
}

/**
 * Whether its plan keeps it working past its expiry and grace (`maintain` or `restrict`:
 * validate answers `valid: true`, `expired`, `updates_until`). Its activations are not said to be
 * open: the portal's answer does not tell `maintain` from `restrict`, which refuses new ones.
 */
function kept(license: PortalLicense, now: number): boolean {
  if (license.updates_until === null || license.in_grace) return false;
  return license.status === 'expired' || (license.status === 'active' && !usable(license, now));
}

/** A day as the portal's words say it; the expiry terms count in UTC days. */
const dayWords = (timestamp: string) =>
  new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeZone: 'UTC' }).format(
    new Date(timestamp),
  );

/** An empty list of activations: "yet" only where one could still be made. */
export function noActivationWords(license: PortalLicense, now: number): string {
  const none = `No ${thing(license.activation_type)} is activated with this license`;
  return usable(license, now) ? `${none} yet.` : `${none}.`;
}

/** A link of a next step. */
export interface StepLink {
  href: string;
  text: string;
}

/** What the customer can do next about their license: words, and a link when there is one. */
export interface NextStep {
  text: string;
  link: StepLink | null;
}

/** The store as the words name it. */
const storeWords = (store: PortalSettings) => store.store_name ?? 'the store you bought it from';

/**
 * The next step for a license that cannot be used as it is: an expired one is renewed (RENEW_URL,
 * else STORE_URL), and one its plan keeps in grace or past its expiry is said to keep working,
 * until when, before the renewal is offered; a revoked or cancelled one is replaced by a new license from the store; a
 * suspended one is a question for the store. Null for an active license.
 */
export function nextStep(
  license: PortalLicense,
  store: PortalSettings,
  now: number,
): NextStep | null {
  const named = storeWords(store);
  const storeLink = (text: string) =>
    store.store_url === null ? null : { href: store.store_url, text };
  const renew =
    store.renew_url === null
      ? { text: ` Renew it with ${named} to get later updates.`, link: null }
      : {
          text: ' Renew it to get later updates.',
          link: { href: store.renew_url, text: 'Renew your license' },
        };
  if (license.status === 'active' && license.in_grace && license.grace_ends_at !== null) {
    return {
      text:
        `This license has expired and is in grace until ${dayWords(license.grace_ends_at)}: ` +
        `the software keeps working as before until then.` +
        (store.renew_url === null
          ? ` Renew it with ${named} before then to keep it active.`
          : ' Renew it before then to keep it active.'),
      link: renew.link,
    };
  }
  if (kept(license, now) && license.updates_until !== null) {
    return {
      text:
        'This license has expired, but the software keeps working, with the updates released ' +
        `until ${dayWords(license.updates_until)}.${renew.text}`,
      link: renew.link,
    };
  }
  if (license.status === 'expired' || (license.status === 'active' && !usable(license, now))) {
    return store.renew_url === null
      ? {
          text: `This license has expired. To use it again and get updates, renew it with ${named}.`,
          link: null,
        }
      : {
          text: 'This license has expired. Renew it to use it again and to get updates.',
          link: { href: store.renew_url, text: 'Renew your license' },
        };
  }
  if (license.status === 'revoked' || license.status === 'cancelled') {
    return {
      text:
        `This license has been ${license.status} and can no longer be used or renewed. To go on ` +
        `using ${license.product}, buy a new license from ${named}.`,
      link: storeLink(`Buy a new license from ${store.store_name ?? 'the store'}`),
    };
  }
  if (license.status === 'suspended') {
    return {
      text:
        'This license is suspended: it cannot be used until the suspension is lifted. Contact ' +
        `${named} to find out why.`,
      link: storeLink(`Contact ${store.store_name ?? 'the store'}`),
    };
  }
  return null;
}

/**
 * How to free a slot, for a usable license with a limit and something activated: deactivate
 * where it is no longer used (from the software's license settings there), and, on a plan with a
 * lease, by leaving one unused. Said first that every slot is taken, when it is. Null when it
 * does not apply.
 */
export function freeSlotWords(license: PortalLicense, now: number): string | null {
  if (!usable(license, now) || license.activation_limit === 0) return null;
  if (license.activations_used === 0) return null;
  const one = thing(license.activation_type);
  const full = license.activations_used >= license.activation_limit;
  const lease =
    license.lease_seconds === null
      ? ''
      : ` One left unused for ${durationWords(license.lease_seconds)} frees its slot by itself.`;
  return (
    (full
      ? `Every activation slot is in use. To use the license on another ${one}, `
      : `To move the license to another ${one}, `) +
    `first deactivate it on one you no longer use, in the license settings of the software ` +
    `there: that frees its slot.${lease}`
  );
}
