import type { StoredImport, WantedImport } from './import-rules.js';

/**
 * The licenses an import writes (import-rules.ts), each license with its activations in one
 * document, so that a run stopped half way leaves whole licenses only, and a run started again
 * finds them stored and matched.
 */
export interface ImportStore {
  /** The licenses stored under these exact keys (keys are compared byte for byte). */
  findForImport(licenseKeys: readonly string[]): Promise<Map<string, StoredImport>>;

  /**
   * Creates these licenses with their activations, in one unordered batch write, at `now`. A key
   * stored meanwhile (the unique index on the key refuses it) creates nothing: it is in `taken`.
   */
  createImported(batch: { licenses: WantedImport[]; now: Date }): Promise<{ taken: string[] }>;

  /**
   * Replaces what an import sets of these stored licenses (product, plan and its terms, status,
   * expiry, limit, customer, source, activations and their counts), in one batch write; their
   * checks, metadata and creation are kept.
   */
  replaceImported(batch: { licenses: WantedImport[]; now: Date }): Promise<void>;
}
