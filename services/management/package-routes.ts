import { z } from 'zod';
import {
  BooleanText,
  CreateVersionRequest,
  DownloadLogRequest,
  DownloadLogSort,
  ExportDownloadLogRequest,
  Timestamp,
  IdText,
  LicensingError,
  PackageFile,
  UpdateFileRequest,
  UpdateOffers,
  UpdateVersionRequest,
} from '../../libs/contracts/index.js';
import {
  declaredLength,
  parseWith,
  refuseUnreadBody,
  sendData,
  type Route,
} from '../../libs/http/index.js';
import { adminErrors, byIdErrors } from './admin-errors.js';
import { IdPath, absentIfEmpty, nonEmptyPatch, pageFields } from './admin-inputs.js';
import { adminRoute, recordChange } from './admin-route.js';
import { rpcRoute } from './rpc-route.js';
import { ADMIN_BASE, type ManagementDeps } from './management-deps.js';
import { managementRoute } from './route-contract.js';
import { downloadLogColumns } from '../../libs/http/csv-columns.js';
import { EXPORT_BATCH, batchesAfter, csvRoute } from './exports.js';
import { FileUpload, receivePackage, requirePlan } from './upload.js';

const VersionToCreate = CreateVersionRequest.omit({ product_id: true });
const VersionPatch = nonEmptyPatch(UpdateVersionRequest.omit({ id: true }));
const FilePatch = nonEmptyPatch(UpdateFileRequest.omit({ id: true }));

/** Room for the multipart envelope around the file: boundaries, part headers, the fields. */
const MULTIPART_ALLOWANCE_BYTES = 64 * 1024;

/** What a view of the download log holds and its order: known fields once each. */
const DownloadLogListQuery = z.strictObject({
  product_id: absentIfEmpty(IdText).meta({ description: 'Only this product.' }),
  refused: absentIfEmpty(BooleanText).meta({
    description: 'true: refused downloads only; false: served ones only.',
  }),
  from: absentIfEmpty(Timestamp).meta({
    description:
      'Only entries at this time or later (ISO 8601, with an offset: 2026-06-01T00:00:00Z).',
  }),
  to: absentIfEmpty(Timestamp).meta({
    description: 'Only entries before this time (excluded); it must come after from.',
  }),
  sort: absentIfEmpty(DownloadLogSort),
});

/** The download log's query: the view's, and the page bounds of the contract. */
const DownloadLogQuery = DownloadLogListQuery.extend(pageFields('Entries'));

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
    const file = await transport
      .call('update-catalog.addFile', {
        version_id,
        filename: received.filename,
        plan_id: received.planId,
        include_in_updates: received.includeInUpdates,
        size: received.stored.size,
        sha256: received.stored.sha256,
        content_type: received.contentType,
        object_key: received.stored.object_key,
      })
      .catch(async (error: unknown) => {
        await transport
          .call('download.deleteObject', { object_key: received.stored.object_key })
          .catch(() => {});
        throw error;
      });
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
  rpcRoute({
    method: 'get',
    path: `${ADMIN_BASE}/download-log`,
    operationId: 'listDownloadLog',
    summary:
      'The download log (spec 4.5): served and refused downloads, newest first unless sorted ' +
      'otherwise, within a date range when given. refused=true lists the Refused Downloads ' +
      'with the error code as the reason.',
    tag: 'Download log',
    query: DownloadLogQuery,
    rpc: 'download.listLog',
    // The contract fills in absent fields and bounds page and per_page.
    request: ({ query }) => parseWith(DownloadLogRequest, query, 'query'),
    success: { status: 200, description: 'One page of the log.' },
    errors: {
      400: adminErrors[400]('An unknown, repeated or malformed parameter, or to not after from.'),
    },
  }),
  csvRoute({
    path: `${ADMIN_BASE}/exports/download-log`,
    operationId: 'exportDownloadLog',
    summary:
      "Every entry of the log's view, in its order, as CSV: the columns of the console's table " +
      '(at, product_id, product, outcome, reason, license_key, identifier, ip, version). ' +
      'Streamed, whatever the number.',
    tag: 'Download log',
    query: DownloadLogListQuery,
    what: 'download-log',
    rows: async ({ query }, { transport }) => {
      const request = parseWith(
        ExportDownloadLogRequest,
        { ...query, limit: EXPORT_BATCH },
        'query',
      );
      // Products are named once, as the export starts; the log keeps their ids.
      const { products } = await transport.call('update-catalog.listProducts', {});
      const titles = new Map(products.map((product) => [product.id, product.title]));
      return {
        columns: downloadLogColumns((id) => titles.get(id) ?? null),
        batches: batchesAfter(async (after) => {
          const batch = await transport.call('download.exportLog', { ...request, after });
          return { rows: batch.entries, next: batch.next };
        }),
      };
    },
  }),
] satisfies readonly Route<ManagementDeps>[];
