/** The lowercase hex digests a package file is recorded and offered with (spec 2.6, 2.7). */
import { z } from 'zod';

export const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);
export const Sha512 = z.string().regex(/^[0-9a-f]{128}$/);
