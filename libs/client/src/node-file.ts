/**
 * The file-path destination of `download`, and a JSON file as the client's store, for Node only. Its modules are loaded on first use
 * through an opaque specifier, so browser bundles never try to resolve `node:` modules.
 */
import type * as NodeCrypto from 'node:crypto';
import type * as NodeFs from 'node:fs/promises';
import type * as NodePath from 'node:path';
import type { Sink } from './downloads/download.js';
import type { KeyValueStore } from './store.js';

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

/**
 * A `cache` store in a JSON file (Node only): one object of strings, rewritten whole through a
 * temporary file and a rename at each `set`, readable by its owner only. A missing or unreadable
 * file reads as empty. The command line keeps its `--state` in one.
 */
export function jsonFileStore(path: string): KeyValueStore {
  let writes: Promise<unknown> = Promise.resolve();
  const modules = async () => ({
    fs: (await load('node:fs/promises')) as Fs,
    paths: (await load('node:path')) as Path,
  });
  const read = async (): Promise<Record<string, unknown>> => {
    const { fs } = await modules();
    try {
      const value: unknown = JSON.parse(await fs.readFile(path, 'utf8'));
      return typeof value === 'object' && value !== null && !Array.isArray(value)
        ? (value as Record<string, unknown>)
        : {};
    } catch {
      return {};
    }
  };
  return {
    async get(name) {
      await writes.catch(() => undefined);
      const value = (await read())[name];
      return typeof value === 'string' ? value : null;
    },
    set(name, value) {
      const write = writes
        .catch(() => undefined)
        .then(async () => {
          const { fs, paths } = await modules();
          const data = await read();
          data[name] = value;
          const target = paths.resolve(path);
          const temporary = paths.join(
            paths.dirname(target),
            `.${paths.basename(target)}.${Math.random().toString(36).slice(2)}.tmp`,
          );
          await fs.writeFile(temporary, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
          await fs.rename(temporary, target).catch(async (error: unknown) => {
            await fs.rm(temporary, { force: true });
            throw error;
          });
        });
      writes = write;
      return write;
    },
  };
}
