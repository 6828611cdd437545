/** STORE_LOGO_FILE: the store's logo, as the customer portal shows it. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/** The largest store logo the customer portal shows (STORE_LOGO_FILE). */
export const MAX_STORE_LOGO_BYTES = 64 * 1024;

/** The image types a store logo may have, by the file's extension. */
const LOGO_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
};

/**
 * The store's logo as the portal shows it: read once at start-up, as a `data:` URL, so the page
 * carries it and its Content-Security-Policy (`img-src 'self' data:`) stays as it is.
 */
export interface StoreLogo {
  file: string;
  dataUrl: string;
}

export const storeLogo = z
  .string()
  .trim()
  .default('')
  .transform((file, ctx): StoreLogo | undefined => {
    if (file === '') return undefined;
    const type = LOGO_TYPES[path.extname(file).slice(1).toLowerCase()];
    const problem = (message: string) => {
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    };
    if (type === undefined) {
      return problem(`must name a ${Object.keys(LOGO_TYPES).join(', ')} file`);
    }
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      return problem(`must name a readable file (${String(code ?? error)})`);
    }
    if (bytes.length === 0 || bytes.length > MAX_STORE_LOGO_BYTES) {
      return problem(`must name a file of 1 byte to ${MAX_STORE_LOGO_BYTES / 1024} KiB`);
    }
    return { file, dataUrl: `data:${type};base64,${bytes.toString('base64')}` };
  });
