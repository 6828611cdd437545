/**
 * The file-path destination of `download`, for Node only. Its modules are loaded on first use
 * through an opaque specifier, so browser bundles never try to resolve `node:` modules.
 */
import type * as NodeCrypto from 'node:crypto';
import type * as NodeFs from 'node:fs/promises';
import type * as NodePath from 'node:path';
import type { Sink } from './download.js';

// Type-only imports: erased from the output, which loads the modules with `load` below.
type Fs = typeof NodeFs;
type Path = typeof NodePath;
type Crypto = typeof NodeCrypto;

const load = (specifier: string): Promise<unknown> =>
  import(/* webpackIgnore: true */ /* @vite-ignore */ specifier);

/**
 * Writes to a temporary file beside the target and renames it over the target only when the
 * download is complete and verified, so a failure never leaves a partial package behind.
 * `destination` is the file to write, or an existing directory (or a path ending in a separator)
 * to write `filename` into.
 */
export async function fileSink(destination: string, filename: string): Promise<Sink> {
  const fs = (await load('node:fs/promises')) as Fs;
  const path = (await load('node:path')) as Path;
  const crypto = (await load('node:crypto')) as Crypto;

  let target = path.resolve(destination);
  const isDirectory =
    /[\\/]$/.test(destination) ||
    (await fs.stat(target).then(
      (stat) => stat.isDirectory(),
      () => false,
    ));
  if (isDirectory) target = path.join(target, filename);
  const temporary = path.join(
    path.dirname(target),
    `.${path.basename(target)}.${crypto.randomBytes(6).toString('hex')}.part`,
  );
  const handle = await fs.open(temporary, 'wx');
  const hash = crypto.createHash('sha256');
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await handle.close();
  };

  return {
    async write(chunk) {
      hash.update(chunk);
      let offset = 0;
      while (offset < chunk.length) {
        const { bytesWritten } = await handle.write(chunk, offset, chunk.length - offset);
        offset += bytesWritten;
      }
    },
    digest: () => hash.digest('hex'),
    async commit() {
      await handle.sync();
      await close();
      await fs.rename(temporary, target);
      return { path: target, blob: null };
    },
    async discard() {
      await close().catch(() => undefined);
      await fs.rm(temporary, { force: true }).catch(() => undefined);
    },
  };
}
