/** An event as a store delivered it: the exact bytes of its body and its headers. */
export interface StoreDelivery {
  readonly body: Buffer;
  /** Header names in lower case, as Node gives them. */
  readonly headers: Readonly<Record<string, string | undefined>>;
}

/**
 * What the check of a delivery's signature found: an event signed with one of the connection's
 * secrets; WooCommerce's unsigned creation ping, answered and otherwise ignored; or a refusal,
 * with the reason an admin reads in the log (never in the answer, which says only that the
 * signature did not verify).
 */
export type SignatureCheck =
  | { readonly ok: true; readonly kind: 'event' }
  | { readonly ok: true; readonly kind: 'ping' }
  | { readonly ok: false; readonly reason: string };

export const signedEvent: SignatureCheck = { ok: true, kind: 'event' };

export function badSignature(reason: string): SignatureCheck {
  return { ok: false, reason };
}
