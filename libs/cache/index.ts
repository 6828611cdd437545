export * from './cached-lookup.js';
export * from './catalog-products.js';
