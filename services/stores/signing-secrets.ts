import { PREVIOUS_SECRET_HOURS } from '../../libs/contracts/stores/store-connections.js';
import type { StoredSigningSecret } from './stores.js';

/** How long a replaced signing secret keeps verifying (a rotation, docs/stores.md). */
export const PREVIOUS_SECRET_KEPT_MS = PREVIOUS_SECRET_HOURS * 3_600_000;

/** The secrets a delivery may be signed with at `now`: the current one, and one not yet expired. */
export function verifyingSecrets(secrets: readonly StoredSigningSecret[], now: Date): string[] {
  return secrets
    .filter(({ expires_at }) => expires_at === null || expires_at.getTime() > now.getTime())
    .map(({ secret }) => secret);
}
