export * from './tally.js';
export * from './store.js';
export * from './counter.js';
export * from './mongo-store.js';
