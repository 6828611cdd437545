import type { TrialRecord } from '../records.js';

/**
 * The trials (docs/api-decisions.md, "Trials"), kept by the license service beside its licenses:
 * one per product and identifier key, ever, under a unique index, so that of requests at once for
 * one identifier one records a trial and the others are told of it.
 */
export interface TrialStore {
  /** Records a new trial; a trial of its product and identifier key already recorded is answered. */
  record(
    trial: TrialRecord,
  ): Promise<
    { outcome: 'recorded'; trial: TrialRecord } | { outcome: 'taken'; trial: TrialRecord }
  >;

  /** The trial not yet converted of one of these products for this identifier key, if any. */
  findOpen(query: {
    productIds: readonly number[];
    identifierKey: string;
  }): Promise<TrialRecord | null>;

  /** Whether this license is a trial license. */
  isTrialLicense(licenseKey: string): Promise<boolean>;

  /**
   * Marks the trial of a product and identifier key converted by a paid license, only while it is
   * not converted: of conversions at once one is written. The trial after, or null when none was.
   */
  convert(conversion: {
    productId: number;
    identifierKey: string;
    licenseKey: string;
    at: Date;
  }): Promise<TrialRecord | null>;

  /** A page of the trials, newest first, with the total. */
  list(query: {
    productId: number | null;
    converted: boolean | null;
    page: number;
    perPage: number;
  }): Promise<{ trials: TrialRecord[]; total: number }>;

  /** How many trials were started, and how many of them converted (of one product, or all). */
  counts(query: { productId: number | null }): Promise<{ started: number; converted: number }>;
}
