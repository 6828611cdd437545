import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The project's web apps (Preact, TSX), by name: their entry points and titles. `npm run build`
 * bundles each into `dist/web/<name>/`; a process run from the sources (`npm start`) bundles them
 * in memory on first use instead, so no build is needed to see them.
 */
export const webApps = {
  portal: { entry: 'services/gateway/portal/main.tsx', title: 'Your license' },
  console: { entry: 'services/management/console/main.tsx', title: 'Licensing console' },
} as const;

export type WebAppName = keyof typeof webApps;

/**
 * The bundled files of an app, by name: `app.js` (the entry the page loads), `app.css` when it
 * imports styles, and the chunks `app.js` imports when a page needs them (`[name]-[hash].js`,
 * such as the overview's chart library), so a page loads only the code it shows.
 */
export type BundledApp = Map<string, Buffer>;

const here = path.dirname(fileURLToPath(import.meta.url));
/**
 * Where the entry points are named from, and where a build puts the bundles: the repository
 * root when running from the sources, `dist` when running the build.
 */
const root = path.resolve(here, '..', '..');
const builtDirectory = (name: WebAppName) => path.join(root, 'web', name);

/** esbuild's options for an app: one ES module entry, split where the app imports lazily. */
export function bundleOptions(name: WebAppName) {
  return {
    entryPoints: { app: path.join(root, webApps[name].entry) },
    bundle: true,
    write: false,
    format: 'esm',
    splitting: true,
    chunkNames: '[name]-[hash]',
    target: 'es2020',
    minify: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    outdir: '/',
    logLevel: 'silent',
  } as const;
}

/** Bundles an app from its sources with esbuild (a development dependency: loaded only here). */
export async function bundleFromSources(name: WebAppName): Promise<BundledApp> {
  const { build } = await import('esbuild');
  const result = await build(bundleOptions(name));
  return new Map(
    result.outputFiles.map((file) => [path.basename(file.path), Buffer.from(file.contents)]),
  );
}

/** The app as the build left it, or undefined when this process runs from the sources. */
async function readBuilt(name: WebAppName): Promise<BundledApp | undefined> {
  const directory = builtDirectory(name);
  let names: string[];
  try {
    names = await readdir(directory);
  } catch {
    return undefined;
  }
  if (!names.includes('app.js')) return undefined;
  const files: BundledApp = new Map();
  for (const file of names) files.set(file, await readFile(path.join(directory, file)));
  return files;
}

export async function loadWebApp(name: WebAppName): Promise<BundledApp> {
  return (await readBuilt(name)) ?? bundleFromSources(name);
}

/** `npm run build`: every app bundled into `<outDir>/web/<name>/`. */
export async function buildWebApps(outDir: string): Promise<void> {
  for (const name of Object.keys(webApps) as WebAppName[]) {
    const directory = path.join(outDir, 'web', name);
    // Chunk names carry their content's hash: an earlier build's would stay beside them.
    await rm(directory, { recursive: true, force: true });
    await mkdir(directory, { recursive: true });
    for (const [file, body] of await bundleFromSources(name)) {
      await writeFile(path.join(directory, file), body);
    }
  }
}
