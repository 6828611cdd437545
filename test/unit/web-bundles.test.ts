import { build, type Metafile } from 'esbuild';
import { bundleOptions, webApps, type WebAppName } from '../../libs/web/apps.js';

/**
 * What each web app's page loads before it shows anything: `app.js` and the chunks it imports
 * statically. Code a single page needs (the overview's chart library) comes in a chunk imported
 * dynamically, fetched when that page is shown; the contracts' validation library never enters a
 * page, which takes its types only.
 */
async function outputsOf(name: WebAppName): Promise<Metafile['outputs']> {
  const result = await build({ ...bundleOptions(name), metafile: true });
  return result.metafile.outputs;
}

/** The outputs reached from `from` through imports of `kind`s, `from` included. */
function reached(
  outputs: Metafile['outputs'],
  from: string,
  kinds: ReadonlySet<string>,
): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const imported of outputs[file]?.imports ?? []) {
      if (kinds.has(imported.kind) && !imported.external) visit(imported.path);
    }
  };
  visit(from);
  return seen;
}

/** The packages whose code is in `files` (a stylesheet imported from code adds none). */
const packagesIn = (outputs: Metafile['outputs'], files: Iterable<string>) => {
  const packages = new Set<string>();
  for (const file of files) {
    for (const [input, { bytesInOutput }] of Object.entries(outputs[file]?.inputs ?? {})) {
      if (bytesInOutput === 0) continue;
      const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
      if (match) packages.add(match[1]!);
    }
  }
  return packages;
};

const STATIC = new Set(['import-statement']);
const ANY = new Set(['import-statement', 'dynamic-import']);
const entryOf = (outputs: Metafile['outputs']) => {
  const entry = Object.keys(outputs).find((file) => file.endsWith('/app.js'));
  if (entry === undefined) throw new Error('The bundle has no app.js.');
  return entry;
};

describe('Web app bundles: what a page loads', () => {
  let console: Metafile['outputs'];
  beforeAll(async () => {
    console = await outputsOf('console');
  });

  test("the console's first load holds neither the chart library nor zod", () => {
    const first = packagesIn(console, reached(console, entryOf(console), STATIC));
    expect(first.has('preact')).toBe(true);
    expect(first.has('uplot')).toBe(false);
    expect(first.has('zod')).toBe(false);
  });

  test("the release notes' Markdown reader comes in a chunk the console imports when the version form is shown", () => {
    const first = packagesIn(console, reached(console, entryOf(console), STATIC));
    const everything = packagesIn(console, reached(console, entryOf(console), ANY));
    expect(first.has('markdown-it')).toBe(false);
    expect(everything.has('markdown-it')).toBe(true);
  });

  test('the chart library comes in a chunk the console imports when the overview is shown', () => {
    const everything = packagesIn(console, reached(console, entryOf(console), ANY));
    expect(everything.has('uplot')).toBe(true);
    expect(everything.has('zod')).toBe(false);
  });

  test.each(Object.keys(webApps).filter((name) => name !== 'console') as WebAppName[])(
    'the %s holds no zod and no chart library',
    async (name) => {
      const outputs = await outputsOf(name);
      const everything = packagesIn(outputs, reached(outputs, entryOf(outputs), ANY));
      expect(everything.has('zod')).toBe(false);
      expect(everything.has('uplot')).toBe(false);
    },
  );
});
