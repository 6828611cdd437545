/**
 * The bound on failed attempts per admin token id (docs/api-decisions.md, "Admins and roles"):
 * the first wrong secret for an id opens a window of FAILED_ATTEMPTS_WINDOW_MS; once
 * MAX_FAILED_ATTEMPTS wrong secrets are counted in it, the id is refused, right secret or not,
 * until that window ends. The window is fixed from its first failure, so failures while refused
 * never lengthen it: nobody is kept out longer than one window at a time.
 */
export const MAX_FAILED_ATTEMPTS = 10;
export const FAILED_ATTEMPTS_WINDOW_MS = 60_000;

/**
 * Counted in each replica's memory (the management API has no Redis), and only for token ids
 * that exist, so memory follows the number of tokens whatever ids are sent.
 */
export class FailedAttempts {
  private readonly windows = new Map<string, { count: number; ends: number }>();

  constructor(
    private readonly limit = MAX_FAILED_ATTEMPTS,
    private readonly windowMs = FAILED_ATTEMPTS_WINDOW_MS,
  ) {}

  /** Whether the token id is refused at `now` (milliseconds). */
  refuses(tokenId: string, now: number): boolean {
    const window = this.windows.get(tokenId);
    return window !== undefined && now < window.ends && window.count >= this.limit;
  }

  /** Counts a wrong secret for the token id at `now`. */
  record(tokenId: string, now: number): void {
    for (const [id, { ends }] of this.windows) if (ends <= now) this.windows.delete(id);
    const window = this.windows.get(tokenId);
    if (window) window.count++;
    else this.windows.set(tokenId, { count: 1, ends: now + this.windowMs });
  }
}
