/**
 * `work`, or a rejection with `message` once `ms` have passed without it settling. The timer is
 * cleared either way; `work` itself is not cancelled (a late answer is dropped).
 */
export function withTimeout<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Waits until `work` settles, or at most `ms`; never rejects. */
export async function settled(work: Promise<unknown>, ms: number): Promise<void> {
  await withTimeout(work, ms, '').catch(() => {});
}
