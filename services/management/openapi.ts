import {
  LicenseDetail,
  PackageFile,
  Plan,
  Product,
  Version,
  WebhookDelivery,
  WebhookEndpoint,
} from '../../libs/contracts/index.js';
import { openApiDocument } from '../../libs/http/index.js';
import { withRoleDocumented } from './admins/roles.js';
import { managementRoutes } from './routes.js';

/** The management API's OpenAPI 3.1 document, generated from its route table. */
export const managementOpenApi = openApiDocument({
  info: {
    title: 'Licensing management API',
    version: '1.0.0',
    description:
      'The admin API: the overview, products and bundles, plans, licenses and their activations, versions ' +
      'and package files, the download log, webhook endpoints and their deliveries, store ' +
      'connections, their mappings and the events they delivered. Every ' +
      'route under /admin/v1 needs `Authorization: Bearer <admin token>`; bodies are JSON; ' +
      'every answer is `{"data": ...}` or `{"error": {"code", "message"}}`.',
  },
  // The paths are absolute (`{api_base}` included), so the server is the origin this document
  // is served from, whatever address that is.
  server: { url: '/', description: 'The management API that serves this document.' },
  routes: managementRoutes.map(withRoleDocumented),
  components: {
    Product,
    Plan,
    LicenseDetail,
    Version,
    PackageFile,
    WebhookEndpoint,
    WebhookDelivery,
  },
  securitySchemes: {
    adminToken: {
      type: 'http',
      scheme: 'bearer',
      description: 'One of the tokens of ADMIN_TOKENS.',
    },
  },
});
