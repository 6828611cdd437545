import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * The sample plugin (libs/client-php/examples/wordpress-plugin) made ready for one store, as its
 * README tells a seller to: the library copied into `licensing-client/`, the store's key set
 * saved beside it, its address and product id written in, and zipped with its folder.
 */
export const PLUGIN_SLUG = 'sample-licensed-plugin';
export const PLUGIN_FILE = `${PLUGIN_SLUG}/${PLUGIN_SLUG}.php`;

const LIBRARY = path.resolve(import.meta.dirname, '..', '..', 'libs', 'client-php');
const EXAMPLE = path.join(LIBRARY, 'examples', 'wordpress-plugin');
const run = promisify(execFile);

export interface PluginBuild {
  storeUrl: string;
  productId: number;
  /** The store's JWK Set, as `GET {api_base}/keys` answers. */
  keys: string;
  version: string;
  /** Files added to the plugin's folder (relative path: content). */
  files?: Record<string, string>;
}

/** `text` with `from` replaced by `to`, which must be there exactly once. */
function replaceOnce(text: string, from: string, to: string): string {
  const at = text.indexOf(from);
  if (at === -1 || text.indexOf(from, at + 1) !== -1) {
    throw new Error(`the sample plugin should hold ${JSON.stringify(from)} exactly once`);
  }
  return text.slice(0, at) + to + text.slice(at + from.length);
}

/** The library copied into `folder/licensing-client`, and the store's key set beside it. */
export async function bundleLibrary(folder: string, keys: string): Promise<void> {
  await mkdir(path.join(folder, 'licensing-client'), { recursive: true });
  await cp(path.join(LIBRARY, 'loader.php'), path.join(folder, 'licensing-client', 'loader.php'));
  await cp(path.join(LIBRARY, 'src'), path.join(folder, 'licensing-client', 'src'), {
    recursive: true,
  });
  await writeFile(path.join(folder, 'licensing-keys.json'), keys);
}

/** Files added to a folder (relative path: content). */
export async function addFiles(folder: string, files: Record<string, string>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(folder, name)), { recursive: true });
    await writeFile(path.join(folder, name), content);
  }
}

/** A zip of `dir/name`, holding the folder itself as WordPress's upgraders expect. */
export async function zipFolder(dir: string, name: string): Promise<Buffer> {
  const zip = path.join(dir, `${name}.zip`);
  await run('zip', ['-q', '-r', '-X', zip, name], {
    cwd: dir,
    timeout: 30_000,
    killSignal: 'SIGKILL',
  });
  return readFile(zip);
}

/** Builds the plugin's folder under `into`; its path. */
export async function buildSamplePlugin(into: string, build: PluginBuild): Promise<string> {
  const folder = path.join(into, PLUGIN_SLUG);
  await cp(EXAMPLE, folder, { recursive: true });
  await bundleLibrary(folder, build.keys);
  const main = path.join(folder, `${PLUGIN_SLUG}.php`);
  let code = await readFile(main, 'utf8');
  code = replaceOnce(code, "'https://licensing.example.com'", `'${build.storeUrl}'`);
  code = replaceOnce(code, "'product_id' => 42,", `'product_id' => ${build.productId},`);
  code = replaceOnce(code, ' * Version: 1.0.0\n', ` * Version: ${build.version}\n`);
  await writeFile(main, code);
  await addFiles(folder, build.files ?? {});
  return folder;
}

/** The plugin's zip, holding its folder as WordPress's upgrader expects. */
export async function zipSamplePlugin(into: string, build: PluginBuild): Promise<Buffer> {
  const dir = path.join(into, `plugin-${build.version}`);
  await buildSamplePlugin(dir, build);
  return zipFolder(dir, PLUGIN_SLUG);
}
