import { z } from 'zod';
import type { ListCursor } from '../../../libs/contracts/index.js';
import {
  CSV_MEDIA_TYPE,
  exportFilename,
  streamCsv,
  type CsvColumn,
  type NoFields,
  type RouteInput,
} from '../../../libs/http/index.js';
import { adminErrors } from './admin-errors.js';
import { type ManagementDeps } from '../management-deps.js';
import { managementRoute } from './route-contract.js';

/**
 * The CSV exports of the admin lists (docs/api-decisions.md, "Lists: order, pages, exports"):
 * `GET` routes that stream every record of the current filter, however many, a batch at a time.
 * Each batch is one RPC call (with the call's timeout) that goes on after the cursor of the one
 * before, so neither this process nor the service holds more than a batch, and a batch deep into
 * the list costs what the first does.
 */

/** Records per batch: one RPC answer of a few hundred kilobytes at most. */
export const EXPORT_BATCH = 500;

/** The batches of a list read after a cursor, until one says there is no more. */
export async function* batchesAfter<Row>(
  read: (after: ListCursor | null) => Promise<{ rows: Row[]; next: ListCursor | null }>,
): AsyncGenerator<Row[]> {
  let after: ListCursor | null = null;
  do {
    const batch: { rows: Row[]; next: ListCursor | null } = await read(after);
    yield batch.rows;
    after = batch.next;
  } while (after !== null);
}

const CsvHeaders = z.object({
  'Content-Disposition': z.string().meta({
    description: 'attachment, with a file name saying what the export holds and when it was made.',
  }),
});

/**
 * A CSV export route of the management API: its query parsed as its OpenAPI entry shows, then
 * `rows` gives the columns and the batches, streamed by `streamCsv`.
 */
export function csvRoute<
  const OperationId extends string,
  const Path extends string,
  Query extends z.ZodObject,
  Row,
>(route: {
  path: Path;
  operationId: OperationId;
  summary: string;
  tag: string;
  query: Query;
  what: string;
  rows: (
    input: RouteInput<NoFields, Query>,
    deps: ManagementDeps,
  ) => Promise<{ columns: readonly CsvColumn<Row>[]; batches: AsyncIterable<readonly Row[]> }>;
}) {
  return managementRoute({
    method: 'get',
    path: route.path,
    operationId: route.operationId,
    summary: route.summary,
    tag: route.tag,
    access: 'admin',
    query: route.query,
    success: {
      200: {
        description:
          'RFC 4180 CSV in UTF-8, a header row first, streamed. A failure once rows are sent ' +
          'cuts the response off (no last chunk), so a client never takes a short file for a ' +
          'whole one.',
        text: CSV_MEDIA_TYPE,
        headers: CsvHeaders,
      },
    },
    errors: {
      400: adminErrors[400]('An unknown, repeated or malformed parameter.'),
      ...adminErrors.always,
    },
    handle: async (input, deps, _req, res) => {
      const { columns, batches } = await route.rows(input, deps);
      await streamCsv(res, {
        filename: exportFilename(route.what, new Date()),
        columns,
        batches,
        logger: deps.logger,
      });
    },
  });
}
