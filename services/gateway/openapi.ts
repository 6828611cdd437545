import { ActivationResult, UpdateInfo, ValidationResult } from '../../libs/contracts/index.js';
import { openApiDocument } from '../../libs/http/index.js';
import { publicRoutes } from './routes.js';

/** The public API's OpenAPI 3.1 document, generated from its route table. */
export const publicOpenApi = openApiDocument({
  info: {
    title: 'Licensing API',
    version: '1.0.0',
    description:
      'License activation, validation and deactivation, update checks and package downloads ' +
      'for client software (the Licensing Service Interface). POST bodies are form fields; ' +
      'every answer is `{"data": ...}` or `{"error": {"code", "message"}}`, except a served ' +
      'file (200 or 206). Later versions may add error codes: treat an unknown one as a ' +
      'failure.',
  },
  // The paths are absolute (`{api_base}` included), so the server is the origin this document
  // is served from, whatever address that is.
  server: { url: '/', description: 'The gateway that serves this document.' },
  routes: publicRoutes,
  components: { Activation: ActivationResult, Validation: ValidationResult, UpdateInfo },
});
