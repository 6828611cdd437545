export * from './errors.js';
export * from './shared.js';
export * from './catalog.js';
export * from './download.js';
export * from './license.js';
export * from './rpc.js';
export * from './signing.js';
export * from './http.js';
