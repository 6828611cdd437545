/** Spec 1: every public path lives under this prefix (`{api_base}`). */
export const API_BASE = '/api/index.php/v1/licensing';
