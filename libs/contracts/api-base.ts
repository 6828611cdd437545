/**
 * Spec 1: every public path lives under this prefix (`{api_base}`). A module of its own, with no
 * import, so that the customer portal and the reference client take it without zod.
 */
export const API_BASE = '/api/index.php/v1/licensing';
