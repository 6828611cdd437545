import type { StoreEvent } from '../store-events.js';

export type StoreEventReading = { ok: true; event: StoreEvent } | { ok: false; reason: string };
