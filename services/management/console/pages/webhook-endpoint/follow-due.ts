import { useEffect } from 'preact/hooks';
import type { DeliveryPage } from './deliveries.js';

/** While a delivery shown is due within this time, the page reads the deliveries again... */
const FOLLOW_DUE_WITHIN_MS = 60_000;
/** ...this often. */
const FOLLOW_EVERY_MS = 2_000;

/**
 * While a delivery shown is pending and due soon, `reload` runs every two seconds, so its
 * attempts appear without a click. Polled rather than timed to its next attempt: a delivery
 * being tried shows when its sender's claim on it lapses instead. Not for a disabled endpoint,
 * whose deliveries wait.
 */
export function useFollowDue(page: DeliveryPage | null, sending: boolean, reload: () => void) {
  useEffect(() => {
    if (!sending || page === null) return;
    const soon = Date.now() + FOLLOW_DUE_WITHIN_MS;
    const due = page.deliveries.some(
      (delivery) =>
        delivery.status === 'pending' &&
        delivery.next_attempt_at !== null &&
        Date.parse(delivery.next_attempt_at) <= soon,
    );
    if (!due) return;
    const timer = setTimeout(reload, FOLLOW_EVERY_MS);
    return () => clearTimeout(timer);
  }, [page, sending, reload]);
}
