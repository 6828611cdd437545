import { z } from 'zod';
import type { AuditEntry } from '../../../libs/contracts/index.js';
import {
  AuditPage,
  AuditSourceKind,
  DEFAULT_PER_PAGE,
  LicensingError,
  MAX_PAGE,
  MAX_PER_PAGE,
  ShortText,
} from '../../../libs/contracts/index.js';
import {
  CSV_MEDIA_TYPE,
  exportFilename,
  streamCsv,
  type CsvColumn,
  type Route,
} from '../../../libs/http/index.js';
import { adminErrors } from '../route-makers/admin-errors.js';
import { absentIfEmpty, pageFields } from '../route-makers/admin-inputs.js';
import { adminRoute } from '../route-makers/admin-route.js';
import { ADMIN_BASE, type ManagementDeps } from '../management-deps.js';
import { managementRoute } from '../route-makers/route-contract.js';
import type { AuditFilter, StoredAuditRecord } from '../stores.js';

const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A moment of the filter: a timestamp with its offset, or a day (UTC). */
const Moment = z
  .string()
  .refine((v) => DATE.test(v) || z.iso.datetime({ offset: true }).safeParse(v).success, {
    message: 'must be a date (2026-05-01) or a timestamp with its offset (2026-05-01T12:00:00Z)',
  })
  .refine((v) => !Number.isNaN(Date.parse(v)), { message: 'must be a real date' });

const AdminIdText = z
  .string()
  .regex(/^(0|[1-9][0-9]{0,15})$/, 'must be an admin id (0: the bootstrap owner)')
  .transform(Number);

/** The audit log's filter: known fields once each. */
const AuditQuery = z.strictObject({
  admin: absentIfEmpty(AdminIdText).meta({
    description: "Only this admin's changes (0: the bootstrap owner of ADMIN_TOKENS).",
  }),
  source: absentIfEmpty(AuditSourceKind).meta({
    description:
      "Only the changes of this source: `admin`, `store_event` (a store's event applied), " +
      '`store_grace` (a store license suspended once its grace days passed).',
  }),
  action: absentIfEmpty(
    z.string().regex(/^[A-Za-z][A-Za-z0-9]{0,99}$/, 'must be an operation id'),
  ).meta({ description: 'Only this action: the operation id of a route (`updateLicense`).' }),
  target: absentIfEmpty(ShortText).meta({
    description:
      'Only this target (`product:12`, `license:key#…`), or every target of a kind (`product`).',
  }),
  from: absentIfEmpty(Moment).meta({
    description: 'From this moment on: a timestamp, or a date (from its start, UTC).',
  }),
  to: absentIfEmpty(Moment).meta({
    description: 'Up to this moment: a timestamp (before it), or a date (to its end, UTC).',
  }),
});

const AuditPageQuery = AuditQuery.extend(pageFields('Entries'));

function filterOf(query: z.output<typeof AuditQuery>): AuditFilter {
  const from = query.from === undefined ? undefined : new Date(query.from);
  const to =
    query.to === undefined
      ? undefined
      : new Date(Date.parse(query.to) + (DATE.test(query.to) ? DAY_MS : 0));
  if (from && to && from >= to) {
    throw new LicensingError('INVALID_REQUEST', 'query: from must be before to.');
  }
  return {
    ...(query.admin !== undefined ? { admin: query.admin } : {}),
    ...(query.source !== undefined ? { source: query.source } : {}),
    ...(query.action !== undefined ? { action: query.action } : {}),
    ...(query.target !== undefined ? { target: query.target } : {}),
    ...(from ? { from } : {}),
    ...(to ? { to } : {}),
  };
}

export function auditEntryView(record: StoredAuditRecord): AuditEntry {
  return { ...record, at: record.at.toISOString() };
}

/**
 * The columns of the audit log's CSV export; before and after as JSON; the source's kind, and
 * what else it names as JSON (a store's change: its connection, and its event). The source's
 * columns come last, after those of the export before stores' changes were kept.
 */
const AUDIT_CSV_COLUMNS: readonly CsvColumn<StoredAuditRecord>[] = [
  { header: 'at', value: (entry) => entry.at.toISOString() },
  { header: 'admin_id', value: (entry) => entry.admin?.id ?? null },
  { header: 'admin_name', value: (entry) => entry.admin?.name ?? null },
  { header: 'action', value: (entry) => entry.action },
  { header: 'target', value: (entry) => entry.target },
  {
    header: 'before',
    value: (entry) => (entry.before === null ? null : JSON.stringify(entry.before)),
  },
  {
    header: 'after',
    value: (entry) => (entry.after === null ? null : JSON.stringify(entry.after)),
  },
  { header: 'source', value: (entry) => entry.source.kind },
  {
    header: 'source_detail',
    value: ({ source: { kind, ...named } }) => (kind === 'admin' ? null : JSON.stringify(named)),
  },
];

/** Entries written to the export at once. */
const EXPORT_BATCH = 200;

/** The entries of `source` in arrays of at most `size`. */
async function* inBatches<T>(source: AsyncIterable<T>, size: number): AsyncGenerator<T[]> {
  let batch: T[] = [];
  for await (const item of source) {
    batch.push(item);
    if (batch.length === size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

const FILTER_ERRORS = {
  400: adminErrors[400]('An unknown, repeated or malformed parameter, or from not before to.'),
};

/**
 * The audit log (docs/api-decisions.md, "Audit log"): every change made through this API, and
 * every license change a store made, read and exported, never changed through it (no route writes
 * to it but the changes themselves).
 */
export const auditRoutes = [
  adminRoute({
    method: 'get',
    path: `${ADMIN_BASE}/audit-log`,
    operationId: 'listAuditLog',
    summary:
      'The audit log, newest first, paged: when, which admin or store (the source), which ' +
      'action (the operation id), the target, and the fields that changed before and after. ' +
      'Kept AUDIT_RETENTION_DAYS.',
    tag: 'Audit log',
    query: AuditPageQuery,
    success: { status: 200, description: 'One page of the log.', data: AuditPage },
    errors: FILTER_ERRORS,
    handle: async ({ query }, { auditLog }) => {
      const page = query.page ?? 1;
      const perPage = query.per_page ?? DEFAULT_PER_PAGE;
      if (page > MAX_PAGE || perPage > MAX_PER_PAGE) {
        throw new LicensingError(
          'INVALID_REQUEST',
          `query: page is at most ${MAX_PAGE}, per_page at most ${MAX_PER_PAGE}.`,
        );
      }
      const { entries, total } = await auditLog.page(filterOf(query), page, perPage);
      return { data: { entries: entries.map(auditEntryView), page, per_page: perPage, total } };
    },
  }),
  managementRoute({
    method: 'get',
    path: `${ADMIN_BASE}/audit-log.csv`,
    operationId: 'exportAuditLog',
    summary:
      'The audit log as CSV, newest first, with the same filter: every matching entry, streamed. ' +
      "Before and after are JSON; a cell a spreadsheet would read as a formula starts with `'`.",
    tag: 'Audit log',
    access: 'admin',
    query: AuditQuery,
    success: {
      200: {
        description:
          'The entries as CSV ' +
          '(`at,admin_id,admin_name,action,target,before,after,source,source_detail`).',
        text: CSV_MEDIA_TYPE,
        headers: z.object({
          'Content-Disposition': z.string().meta({ description: 'attachment; filename="…"' }),
        }),
      },
    },
    errors: { ...FILTER_ERRORS, ...adminErrors.always },
    handle: async ({ query }, { auditLog, logger }: ManagementDeps, _req, res) => {
      const filter = filterOf(query);
      await streamCsv(res, {
        filename: exportFilename('audit-log', new Date()),
        columns: AUDIT_CSV_COLUMNS,
        batches: inBatches(auditLog.each(filter), EXPORT_BATCH),
        logger,
      });
    },
  }),
] satisfies readonly Route<ManagementDeps>[];
