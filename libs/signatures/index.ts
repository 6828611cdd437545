/**
 * What the public API signs and the reference client checks, in one place both import: HTTP
 * Message Signatures of answers (RFC 9421) over their content digest (RFC 9530), the public key
 * set (RFC 7517, 8037, 7638) and offline license files (RFC 7515, 7519). No dependencies and no
 * Node modules: the client bundles it for browsers too.
 */
export * from './keys.js';
export * from './license-file.js';
export * from './message-signatures.js';
export { fromBase64, toBase64, toBase64Url } from './structured-fields.js';
