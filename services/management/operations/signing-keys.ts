import type { SigningKeysView } from '../../../libs/contracts/index.js';
import type { JwkSet } from '../../../libs/signatures/index.js';
import { API_BASE } from '../../../libs/contracts/api-base.js';

/**
 * What the admin sees of the public API's signing keys: their ids from the key set the gateway
 * publishes (the same `publishedKeySet`), and its address, `{PUBLIC_URL}{api_base}/keys`, or the
 * path alone when the public address is not known.
 */
export function signingKeysView(
  keySet: JwkSet | undefined,
  publicUrl: string | undefined,
): SigningKeysView {
  const kids = keySet?.keys.map((key) => key.kid) ?? [];
  return {
    current_kid: kids[0] ?? null,
    kids,
    key_set_url: `${publicUrl?.replace(/\/+$/, '') ?? ''}${API_BASE}/keys`,
  };
}
