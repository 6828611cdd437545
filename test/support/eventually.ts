/**
 * Waits until `check` holds, for state that settles after the answer a test saw (a clean-up, a
 * stream closed in another process, a line logged once the response has ended). Not a timing
 * assertion: the bound only keeps a broken system from hanging the test, and its failure names
 * what never happened.
 */
export async function eventually(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
