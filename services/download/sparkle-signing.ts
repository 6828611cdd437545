import { LicensingError } from '../../libs/contracts/index.js';
import type { SparkleKey } from '../../libs/config/index.js';
import type { PackageStorage } from './storage.js';

/**
 * `download.signPackage`: the Sparkle EdDSA signature of a stored package, made with the seller's
 * key (SPARKLE_PRIVATE_KEY, or SPARKLE_PRIVATE_KEY_FILE), which never leaves this service. Ed25519 signs the whole file
 * at once, so the object is read into memory once: one over `maxBytes` (MAX_UPLOAD_BYTES) is
 * refused rather than read. Without a key there is nothing to sign with: null.
 */
export async function signStoredPackage(
  deps: {
    storage: Pick<PackageStorage, 'stat' | 'read'>;
    sparkleKey: SparkleKey | undefined;
    maxBytes: number;
  },
  objectKey: string,
): Promise<string | null> {
  const { storage, sparkleKey, maxBytes } = deps;
  if (!sparkleKey) return null;
  const info = await storage.stat(objectKey);
  if (!info) throw new LicensingError('NOT_FOUND', 'No stored package has this object key.');
  if (info.size > maxBytes) {
    throw new LicensingError(
      'PAYLOAD_TOO_LARGE',
      `The package is over the ${maxBytes} bytes that may be signed for Sparkle; sign it with ` +
        'sign_update and upload it with its signature.',
    );
  }
  const bytes = Buffer.alloc(info.size);
  let filled = 0;
  for await (const chunk of await storage.read(objectKey, 0, info.size)) {
    const part = chunk as Buffer;
    part.copy(bytes, filled);
    filled += part.length;
  }
  return sparkleKey.signature(bytes);
}
