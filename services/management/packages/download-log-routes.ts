import { z } from 'zod';
import {
  BooleanText,
  DownloadLogRequest,
  DownloadLogSort,
  ExportDownloadLogRequest,
  IdText,
  Timestamp,
} from '../../../libs/contracts/index.js';
import { downloadLogColumns } from '../../../libs/http/csv/csv-columns.js';
import { parseWith, type Route } from '../../../libs/http/index.js';
import { adminErrors } from '../route-makers/admin-errors.js';
import { absentIfEmpty, pageFields } from '../route-makers/admin-inputs.js';
import { EXPORT_BATCH, batchesAfter, csvRoute } from '../route-makers/exports.js';
import { ADMIN_BASE, type ManagementDeps } from '../management-deps.js';
import { rpcRoute } from '../route-makers/rpc-route.js';

/** The download log (spec 4.5: Refused Downloads among its entries), a page or all as CSV. */

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

export const downloadLogRoutes = [
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
