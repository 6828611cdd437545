import express, { type Response, type Router } from 'express';
import {
  AddActivationRequest,
  CreateLicenseRequest,
  CreatePlanRequest,
  CreateProductRequest,
  LicenseRef,
  LicensingError,
  RemoveActivationRequest,
  UpdateLicenseRequest,
  UpdateProductRequest,
  serviceNames,
  type ServiceName,
} from '../../libs/contracts/index.js';
import { sendData } from '../../libs/http/index.js';
import type { Transport } from '../../libs/transport/index.js';
import { jsonBody, parseWith, pathId, pathText } from './input.js';

/** Every management route lives under this prefix and needs an admin token. */
export const ADMIN_BASE = '/admin/v1';

/** A health check must answer quickly even when a service is down. */
const HEALTH_TIMEOUT_MS = 2000;

/** A PATCH that changes nothing is a client mistake, not a no-op. */
const nonEmptyPatch = <T extends object>(value: T) => Object.keys(value).length > 0;
const EMPTY_PATCH = { message: 'must change at least one field' };

const ProductPatch = UpdateProductRequest.omit({ id: true }).refine(nonEmptyPatch, EMPTY_PATCH);
const LicensePatch = UpdateLicenseRequest.omit({ license_key: true }).refine(
  nonEmptyPatch,
  EMPTY_PATCH,
);
const ActivationToAdd = AddActivationRequest.omit({ license_key: true });

function created(res: Response, location: string, data: unknown): void {
  res.location(location);
  sendData(res, data, 201);
}

/**
 * Admin Add is refused for the reasons activate is (spec 3.2: not active, expired, full), but an
 * admin's refused Add is a conflict with the license's state: 409, with the spec's code.
 */
function asConflict(error: unknown): unknown {
  if (!(error instanceof LicensingError) || error.status !== 403) return error;
  return new LicensingError(error.code, error.message, { status: 409, details: error.details });
}

const licensePath = (key: string) => `${ADMIN_BASE}/licenses/${encodeURIComponent(key)}`;

/** The admin resources. Each route validates its input and makes one RPC call. */
export function adminRoutes(transport: Transport): Router {
  const router = express.Router();

  // ---- Products (update-catalog) ----
  router.post('/products', async (req, res) => {
    const request = parseWith(CreateProductRequest, jsonBody(req));
    const product = await transport.call('update-catalog.createProduct', request);
    created(res, `${ADMIN_BASE}/products/${product.id}`, product);
  });

  router.get('/products', async (_req, res) => {
    sendData(res, await transport.call('update-catalog.listProducts', {}));
  });

  router.get('/products/:id', async (req, res) => {
    sendData(res, await transport.call('update-catalog.getProduct', { id: pathId(req) }));
  });

  router.patch('/products/:id', async (req, res) => {
    const id = pathId(req);
    const changes = parseWith(ProductPatch, jsonBody(req));
    sendData(res, await transport.call('update-catalog.updateProduct', { id, ...changes }));
  });

  // ---- Plans (license) ----
  router.post('/plans', async (req, res) => {
    const request = parseWith(CreatePlanRequest, jsonBody(req));
    const plan = await transport.call('license.createPlan', request);
    created(res, `${ADMIN_BASE}/plans/${plan.id}`, plan);
  });

  router.get('/plans', async (_req, res) => {
    sendData(res, await transport.call('license.listPlans', {}));
  });

  router.get('/plans/:id', async (req, res) => {
    sendData(res, await transport.call('license.getPlan', { id: pathId(req) }));
  });

  // ---- Licenses (license) ----
  router.post('/licenses', async (req, res) => {
    const request = parseWith(CreateLicenseRequest, jsonBody(req));
    const license = await transport.call('license.createLicense', request);
    created(res, licensePath(license.license_key), license);
  });

  router.get('/licenses/:key', async (req, res) => {
    const ref = parseWith(LicenseRef, { license_key: pathText(req, 'key') });
    sendData(res, await transport.call('license.getLicense', ref));
  });

  router.patch('/licenses/:key', async (req, res) => {
    const { license_key } = parseWith(LicenseRef, { license_key: pathText(req, 'key') });
    const changes = parseWith(LicensePatch, jsonBody(req));
    sendData(res, await transport.call('license.updateLicense', { license_key, ...changes }));
  });

  // Spec 3.2: Add and Remove activation in admin.
  router.post('/licenses/:key/activations', async (req, res) => {
    const { license_key } = parseWith(LicenseRef, { license_key: pathText(req, 'key') });
    const activation = parseWith(ActivationToAdd, jsonBody(req));
    const detail = await transport
      .call('license.addActivation', { license_key, ...activation })
      .catch((error: unknown) => {
        throw asConflict(error);
      });
    sendData(res, detail, 201);
  });

  router.delete('/licenses/:key/activations/:identifier', async (req, res) => {
    const request = parseWith(RemoveActivationRequest, {
      license_key: pathText(req, 'key'),
      identifier: pathText(req, 'identifier'),
    });
    sendData(res, await transport.call('license.removeActivation', request));
  });

  // ---- Health of the services behind the management API ----
  router.get('/health', async (_req, res) => {
    const checks = await Promise.allSettled(
      serviceNames.map((service) =>
        transport.call(`${service}.health`, {}, { timeoutMs: HEALTH_TIMEOUT_MS }),
      ),
    );
    const services: Partial<Record<ServiceName, { status: 'ok'; uptime_seconds: number }>> = {};
    const down: string[] = [];
    checks.forEach((check, i) => {
      const service = serviceNames[i]!;
      if (check.status === 'fulfilled') {
        const { status, uptime_seconds } = check.value;
        services[service] = { status, uptime_seconds };
      } else {
        const reason = check.reason instanceof Error ? ` (${check.reason.message})` : '';
        down.push(`${service}${reason}`);
      }
    });
    if (down.length > 0) {
      throw new LicensingError('SERVICE_UNAVAILABLE', `Not answering: ${down.join('; ')}`);
    }
    sendData(res, { status: 'ok', services });
  });

  return router;
}
