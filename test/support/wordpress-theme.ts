import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { addFiles, bundleLibrary, zipFolder, type PluginBuild } from './wordpress-package.js';

/**
 * A theme sold with the Licensing Service, for the WordPress test of `ThemeLicense`: the least a
 * theme is (style.css and index.php), and a functions.php that adds the license as a seller would,
 * freeing the site's activation when the site switches to another theme. And a plain theme to
 * switch to.
 */
export const THEME_SLUG = 'sample-licensed-theme';
export const PLAIN_THEME = 'plain-theme';

const functionsPhp = (build: PluginBuild) => `<?php
require __DIR__ . '/licensing-client/loader.php';

function sample_licensed_theme_license(): \\Licensing\\WordPress\\ThemeLicense
{
    static $license = null;
    if ($license === null) {
        $license = new \\Licensing\\WordPress\\ThemeLicense(__FILE__, [
            'store_url' => ${JSON.stringify(build.storeUrl)},
            'product_id' => ${build.productId},
            'keys' => file_get_contents(__DIR__ . '/licensing-keys.json'),
            'deactivate_on_deactivation' => true,
        ]);
    }
    return $license;
}

sample_licensed_theme_license()->register();
`;

const styleCss = (name: string, version: string) =>
  `/*\nTheme Name: ${name}\nVersion: ${version}\nRequires PHP: 7.4\n*/\n`;

/** Builds the theme's folder under `into`; its path. */
export async function buildSampleTheme(into: string, build: PluginBuild): Promise<string> {
  const folder = path.join(into, THEME_SLUG);
  await mkdir(folder, { recursive: true });
  await writeFile(path.join(folder, 'style.css'), styleCss('Sample Licensed Theme', build.version));
  await writeFile(path.join(folder, 'index.php'), '<?php // The least a theme is.\n');
  await writeFile(path.join(folder, 'functions.php'), functionsPhp(build));
  await bundleLibrary(folder, build.keys);
  await addFiles(folder, build.files ?? {});
  return folder;
}

/** The theme's zip, holding its folder. */
export async function zipSampleTheme(into: string, build: PluginBuild): Promise<Buffer> {
  const dir = path.join(into, `theme-${build.version}`);
  await buildSampleTheme(dir, build);
  return zipFolder(dir, THEME_SLUG);
}

/** A theme with no license, to switch to. */
export async function buildPlainTheme(themes: string): Promise<void> {
  const folder = path.join(themes, PLAIN_THEME);
  await mkdir(folder, { recursive: true });
  await writeFile(path.join(folder, 'style.css'), styleCss('Plain Theme', '1.0.0'));
  await writeFile(path.join(folder, 'index.php'), '<?php // The least a theme is.\n');
}
