import { z } from 'zod';
import { StoreConnection } from './store-connections.js';

/**
 * A store connection as the management API answers it (docs/stores.md, "Admin API"): its
 * settings, never a secret, and the address the store is to send its events to.
 */
export const StoreConnectionView = StoreConnection.extend({
  events_url: z.string().meta({
    description:
      'What to paste into the store as its webhook URL: {PUBLIC_URL}{api_base}/stores/{id}/events, ' +
      'or the path alone when PUBLIC_URL is unset.',
  }),
});
export type StoreConnectionView = z.infer<typeof StoreConnectionView>;

export const StoreConnectionViewList = z.object({ connections: z.array(StoreConnectionView) });
export type StoreConnectionViewList = z.infer<typeof StoreConnectionViewList>;
