import { z } from 'zod';
import {
  CreateVersionRequest,
  LicensingError,
  PackageFile,
  UpdateFileRequest,
  UpdateOffers,
  UpdateVersionRequest,
} from '../../../libs/contracts/index.js';
import {
  declaredLength,
  refuseUnreadBody,
  sendData,
  type Route,
} from '../../../libs/http/index.js';
import { adminErrors, byIdErrors } from '../route-makers/admin-errors.js';
import { IdPath, nonEmptyPatch } from '../route-makers/admin-inputs.js';
import { adminRoute, recordChange } from '../route-makers/admin-route.js';
import { rpcRoute } from '../route-makers/rpc-route.js';
import { ADMIN_BASE, type ManagementDeps } from '../management-deps.js';
import { managementRoute } from '../route-makers/route-contract.js';
import { FileUpload } from './upload-fields.js';
import { receivePackage, requirePlan } from './upload.js';
import { sparkleSignature } from './upload-signature.js';

const VersionToCreate = CreateVersionRequest.omit({ product_id: true });
const VersionPatch = nonEmptyPatch(UpdateVersionRequest.omit({ id: true }));
const FilePatch = nonEmptyPatch(UpdateFileRequest.omit({ id: true }));

/** Room for the multipart envelope around the file: boundaries, part headers, the fields. */
const MULTIPART_ALLOWANCE_BYTES = 64 * 1024;

/** The upload: multipart, streamed; not a JSON route. */
const uploadRoute = managementRoute({
  method: 'post',
  path: `${ADMIN_BASE}/versions/:id/files`,
  operationId: 'uploadFile',
  summary:
    'Upload a package file to a version. The file is streamed to object storage; the answer ' +
    'carries its size and SHA-256. The fields may come before or after the file.',
  tag: 'Versions and files',
  access: 'admin',
  params: IdPath,
  streamedBody: { contentType: 'multipart/form-data', schema: FileUpload },
  success: {
    201: {
      description: 'The file.',
      data: PackageFile,
      headers: z.object({ Location: z.string().meta({ description: 'The path of the file.' }) }),
    },
  },
  errors: {
    400: adminErrors[400](
      'Not multipart/form-data, no file part named "file", an empty file, an unknown field or ' +
        'plan, or a field that fails validation.',
    ),
    404: adminErrors[404]('No version with this id.'),
    413: { codes: ['PAYLOAD_TOO_LARGE'], description: 'The file is over MAX_UPLOAD_BYTES.' },
    ...adminErrors.always,
  },
  handle: async ({ params }, deps, req, res) => {
    const { transport, maxUploadBytes } = deps;
    const version_id = params.id;
    if (!req.is('multipart/form-data')) {
      throw new LicensingError(
        'INVALID_REQUEST',
        'The request body must be multipart/form-data with the package as "file".',
      );
    }
    const declared = declaredLength(req);
    if (declared !== undefined && declared > maxUploadBytes + MULTIPART_ALLOWANCE_BYTES) {
      throw refuseUnreadBody(
        res,
        new LicensingError(
          'PAYLOAD_TOO_LARGE',
          `file: the package is over the limit of ${maxUploadBytes} bytes.`,
        ),
      );
    }
    // The version must exist before any byte is stored.
    await transport.call('update-catalog.getVersion', { id: version_id });
    const received = await receivePackage(req, transport, maxUploadBytes);
    const removeStored = async (error: unknown): Promise<never> => {
      await transport
        .call('download.deleteObject', { object_key: received.stored.object_key })
        .catch(() => {});
      throw error;
    };
    const signature = await sparkleSignature(transport, received).catch(removeStored);
    const file = await transport
      .call('update-catalog.addFile', {
        version_id,
        filename: received.filename,
        plan_id: received.planId,
        include_in_updates: received.includeInUpdates,
        platform: received.platform,
        arch: received.arch,
        signature,
        minimum_system_version: received.minimumSystemVersion,
        requires_entitlement: received.requiresEntitlement,
        size: received.stored.size,
        sha256: received.stored.sha256,
        sha512: received.stored.sha512,
        content_type: received.contentType,
        object_key: received.stored.object_key,
      })
      .catch(removeStored);
    const location = `${ADMIN_BASE}/files/${file.id}`;
    await recordChange(deps, res, {
      action: 'uploadFile',
      path: location,
      before: null,
      after: file,
    });
    res.location(location);
    sendData(res, file, 201);
  },
});

/**
 * Versions, package files and the download log (spec 2.6, 2.7, 4.5). Versions and files are
 * records of the update catalog; their bytes are objects of the download service.
 */
export const packageRoutes = [
  rpcRoute({
    method: 'post',
    path: `${ADMIN_BASE}/products/:id/versions`,
    operationId: 'createVersion',
    summary: 'Add a version to a product. Files are uploaded to it afterwards.',
    tag: 'Versions and files',
    params: IdPath,
    body: VersionToCreate,
    rpc: 'update-catalog.createVersion',
    request: ({ params, body }) => ({ product_id: params.id, ...body }),
    success: { status: 201, description: 'The version.' },
    location: (version) => `${ADMIN_BASE}/versions/${version.id}`,
    errors: { 404: adminErrors[404]('No product with this id.') },
  }),
  rpcRoute({
    method: 'get',
    path: `${ADMIN_BASE}/products/:id/versions`,
    operationId: 'listVersions',
    summary: "A product's versions with their files, most recently uploaded first.",
    tag: 'Versions and files',
    params: IdPath,
    rpc: 'update-catalog.listVersions',
    request: ({ params }) => ({ product_id: params.id }),
    success: { status: 200, description: 'The versions.' },
    errors: byIdErrors('No product with this id.'),
  }),
  rpcRoute({
    method: 'get',
    path: `${ADMIN_BASE}/versions/:id`,
    operationId: 'getVersion',
    summary: 'One version with its files.',
    tag: 'Versions and files',
    params: IdPath,
    rpc: 'update-catalog.getVersion',
    request: ({ params }) => params,
    success: { status: 200, description: 'The version.' },
    errors: byIdErrors(),
  }),
  rpcRoute({
    method: 'patch',
    path: `${ADMIN_BASE}/versions/:id`,
    operationId: 'updateVersion',
    summary: 'Change a version (publish or unpublish it). At least one field must be sent.',
    tag: 'Versions and files',
    params: IdPath,
    body: VersionPatch,
    rpc: 'update-catalog.updateVersion',
    request: ({ params, body }) => ({ ...params, ...body }),
    success: { status: 200, description: 'The changed version.' },
    errors: { 404: adminErrors[404]() },
    audit: {
      before: ({ params }, { transport }) => transport.call('update-catalog.getVersion', params),
    },
  }),
  adminRoute({
    method: 'get',
    path: `${ADMIN_BASE}/products/:id/offers`,
    operationId: 'listUpdateOffers',
    summary:
      'What the update check offers now (spec 4.4): without a key (files for every plan), and ' +
      "for a key of each plan (that plan's files preferred). Null version: nothing is offered.",
    tag: 'Versions and files',
    params: IdPath,
    success: { status: 200, description: 'One offer per plan.', data: UpdateOffers },
    errors: byIdErrors('No product with this id.'),
    handle: async ({ params }, { transport }) => {
      const { plans } = await transport.call('license.listPlans', {});
      const scopes = [null, ...plans];
      const offers = await Promise.all(
        scopes.map(async (plan) => {
          const { selection } = await transport.call('update-catalog.selectFile', {
            product_id: params.id,
            plan_id: plan?.id ?? null,
          });
          return {
            plan_id: plan?.id ?? null,
            plan: plan?.name ?? null,
            version: selection?.version.version ?? null,
            file: selection
              ? {
                  id: selection.file.id,
                  filename: selection.file.filename,
                  size: selection.file.size,
                }
              : null,
          };
        }),
      );
      return { data: { offers } };
    },
  }),
  uploadRoute,
  adminRoute({
    method: 'patch',
    path: `${ADMIN_BASE}/files/:id`,
    operationId: 'updateFile',
    summary: 'Restrict a file to a plan (or to none), or tick Include in auto-updates.',
    tag: 'Versions and files',
    params: IdPath,
    body: FilePatch,
    success: { status: 200, description: 'The changed file.', data: PackageFile },
    errors: { 404: adminErrors[404]() },
    handle: async ({ params, body }, { transport }) => {
      if (body.plan_id) await requirePlan(transport, body.plan_id);
      return { data: await transport.call('update-catalog.updateFile', { ...params, ...body }) };
    },
  }),
  adminRoute({
    method: 'delete',
    path: `${ADMIN_BASE}/files/:id`,
    operationId: 'deleteFile',
    summary: 'Remove a file and its stored object. Cannot be undone.',
    tag: 'Versions and files',
    params: IdPath,
    success: { status: 200, description: 'The removed file.', data: PackageFile },
    errors: byIdErrors(),
    handle: async ({ params }, { transport, logger }) => {
      const file = await transport.call('update-catalog.deleteFile', params);
      try {
        await transport.call('download.deleteObject', { object_key: file.object_key });
      } catch (error) {
        // The record is gone, so no one is offered the file; the object is left for cleanup.
        logger.error(
          { err: error, object_key: file.object_key },
          'a removed file kept its stored object',
        );
      }
      return { data: file };
    },
  }),
] satisfies readonly Route<ManagementDeps>[];
