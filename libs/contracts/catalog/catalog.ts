/** The update catalog's contracts: its products, their versions and files, the update check. */
export * from './catalog-products.js';
export * from './catalog-versions.js';
export * from './catalog-update-check.js';
