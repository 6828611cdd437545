import type { LicenseSortField, LicenseStatus, ListCursor } from '../../../libs/contracts/index.js';
import type { ActivationRecord, LicenseRecord } from '../records.js';

/** What an admin search filters on (all given filters hold). */
export interface LicenseFilters {
  productId: number | null;
  planId: number | null;
  /** The reported status (spec 3.1): an active license past its expiry date is `expired`. */
  status: LicenseStatus | null;
  /**
   * A license matches when its key starts with `keyPrefix` (case-sensitive), one of its
   * activations has one of `identifierKeys` (services/license/rules.ts `identifierSearchKeys`), its
   * customer's address is `customerEmail` (normalised), or one of its metadata values or its store
   * sale's order or subscription id, or the id its import's source has of it, is one of
   * `exactTexts` (exactly).
   */
  text: {
    keyPrefix: string | null;
    identifierKeys: string[];
    customerEmail: string | null;
    exactTexts: string[];
  } | null;
}

/** The order of an admin's license list: a field, then the record's id, both one way. */
export interface LicenseOrder {
  field: LicenseSortField;
  descending: boolean;
}

/** The order admin lists had before they could be sorted: newest first. */
export const NEWEST_FIRST: LicenseOrder = { field: 'created_at', descending: true };

/** A page of a license's activations, in the order they were made, and how many match in all. */
export interface ActivationPage {
  activations: ActivationRecord[];
  total: number;
}

/** One batch of a license list read in order (`scan`): after the cursor, at most `limit`. */
export interface LicenseScan {
  filters: LicenseFilters;
  now: Date;
  order: LicenseOrder;
  after: ListCursor | null;
  limit: number;
}

/** A batch of licenses, and the cursor of the next one (null: the list is done). */
export interface LicenseBatch {
  licenses: LicenseRecord[];
  next: ListCursor | null;
}

/** What `LicenseReadModel.currentFigures` counts. */
export interface LicenseFigures {
  active: number;
  activationsInUse: number;
  expiring: number;
}

/**
 * What the admin reads of licenses without deciding on them (docs/api-decisions.md, "Lists:
 * order, pages, exports"): a license's activations a page at a time, the search and its export a
 * batch at a time, and the overview's figures. Nothing here writes; the LicenseStore writes.
 */
export interface LicenseReadModel {
  /**
   * A page of the license's activations, oldest first; with `identifierKeys`, only those under
   * one of them. Pages count from 1.
   */
  listActivations(list: {
    licenseKey: string;
    identifierKeys: readonly string[] | null;
    page: number;
    perPage: number;
  }): Promise<ActivationPage>;

  /**
   * Admin search: the licenses matching every filter in `order` (ties broken by the order they
   * were issued in, the same way), one page of them, and how many match in all.
   */
  search(search: {
    filters: LicenseFilters;
    now: Date;
    order: LicenseOrder;
    page: number;
    perPage: number;
  }): Promise<{ licenses: LicenseRecord[]; total: number }>;

  /**
   * The same list a batch at a time: up to `limit` licenses after the cursor `after` (null: from
   * the start), and the cursor of the last one, null once the list has no more. However far
   * into the list, a batch costs what the first does.
   */
  scan(scan: LicenseScan): Promise<LicenseBatch>;

  /**
   * What is in use at `now` (the admin overview), of one product's licenses or (null) all of
   * them: the licenses whose reported status is active (spec 3.1), the slots their activations
   * take (`activations_used`), and how many of them expire after `now` and by `expiringBy`.
   */
  currentFigures(query: {
    productId: number | null;
    now: Date;
    expiringBy: Date;
  }): Promise<LicenseFigures>;
}
