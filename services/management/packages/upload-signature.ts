/** A macOS package signed at upload with the seller's Sparkle key (docs/updaters/sparkle.md). */
import type { Transport } from '../../../libs/transport/index.js';
import type { ReceivedPackage } from './upload.js';

/** Reading the stored package back to sign it: at least this long, as for a small file. */
const SIGN_MIN_TIMEOUT_MS = 30_000;
/** ...and as long as reading it at 10 MB/s would take, for a large one. */
const SIGN_READ_BYTES_PER_MS = 10_000;

/** How long management waits for the download service to sign a package of `size` bytes. */
export function signTimeoutMs(size: number): number {
  return Math.max(SIGN_MIN_TIMEOUT_MS, Math.ceil(size / SIGN_READ_BYTES_PER_MS));
}

/**
 * The file's signature: the one uploaded with it, or, for a macOS package uploaded without one,
 * the Sparkle signature the download service makes with the seller's key (null without a key).
 */
export async function sparkleSignature(
  transport: Transport,
  received: ReceivedPackage,
): Promise<string | null> {
  if (received.signature !== null || received.platform !== 'darwin') return received.signature;
  const { signature } = await transport.call(
    'download.signPackage',
    { object_key: received.stored.object_key },
    { timeoutMs: signTimeoutMs(received.stored.size) },
  );
  return signature;
}
