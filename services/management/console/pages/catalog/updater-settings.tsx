/**
 * A product's settings for Joomla's and WordPress's updaters (docs/updaters.md): what its feeds
 * repeat so each updater matches the installed extension. The server checks them; its error is
 * shown by the product form.
 */
import type { JoomlaSettings, Product } from '../../../../../libs/contracts/index.js';
import { DEFAULT_JOOMLA_TARGET_PLATFORM } from '../../../../../libs/contracts/bounds.js';
import { Field } from '../../../../../libs/web/ui/components.js';
import { Check, Input, WordSelect } from '../../shared/components/fields.js';

/** The settings as typed: text fields, an empty one none. */
export interface JoomlaDraft {
  element: string;
  type: JoomlaSettings['type'];
  client: JoomlaSettings['client'];
  folder: string;
  target_platform: string;
  php_minimum: string;
}
export interface WordPressDraft {
  slug: string;
  requires: string;
  tested: string;
  requires_php: string;
}
export interface UpdaterDrafts {
  joomla: JoomlaDraft | null;
  wordpress: WordPressDraft | null;
}

const NEW_JOOMLA: JoomlaDraft = {
  element: '',
  type: 'plugin',
  client: 'site',
  folder: '',
  target_platform: '',
  php_minimum: '',
};
const NEW_WORDPRESS: WordPressDraft = { slug: '', requires: '', tested: '', requires_php: '' };

// Typed out rather than read from libs/contracts/catalog/updaters.ts: that module would bring zod into
// the page, and zod's test for eval is a Content-Security-Policy violation.
const TYPE_WORDS: Record<JoomlaSettings['type'], string> = {
  component: 'component',
  module: 'module',
  plugin: 'plugin',
  template: 'template',
  library: 'library',
  package: 'package',
  file: 'file',
  language: 'language',
};
const CLIENT_WORDS: Record<JoomlaSettings['client'], string> = {
  site: 'site',
  administrator: 'administrator',
};

const orNull = (text: string) => (text.trim() === '' ? null : text.trim());

export function updaterDraftsOf(product: Product | null): UpdaterDrafts {
  const joomla = product?.joomla ?? null;
  const wordpress = product?.wordpress ?? null;
  return {
    joomla: joomla && {
      ...joomla,
      folder: joomla.folder ?? '',
      target_platform: joomla.target_platform ?? '',
      php_minimum: joomla.php_minimum ?? '',
    },
    wordpress: wordpress && {
      slug: wordpress.slug,
      requires: wordpress.requires ?? '',
      tested: wordpress.tested ?? '',
      requires_php: wordpress.requires_php ?? '',
    },
  };
}

/** What the API takes: null for an updater left off, empty texts as none. */
export function updaterBody(drafts: UpdaterDrafts) {
  const { joomla, wordpress } = drafts;
  return {
    joomla: joomla && {
      element: joomla.element.trim(),
      type: joomla.type,
      client: joomla.client,
      folder: orNull(joomla.folder),
      target_platform: orNull(joomla.target_platform),
      php_minimum: orNull(joomla.php_minimum),
    },
    wordpress: wordpress && {
      slug: wordpress.slug.trim(),
      requires: orNull(wordpress.requires),
      tested: orNull(wordpress.tested),
      requires_php: orNull(wordpress.requires_php),
    },
  };
}

export function UpdaterSettings({
  drafts,
  onChange,
}: {
  drafts: UpdaterDrafts;
  onChange: (drafts: UpdaterDrafts) => void;
}) {
  const { joomla, wordpress } = drafts;
  const setJoomla = (change: Partial<JoomlaDraft>) =>
    onChange({ ...drafts, joomla: { ...joomla!, ...change } });
  const setWordPress = (change: Partial<WordPressDraft>) =>
    onChange({ ...drafts, wordpress: { ...wordpress!, ...change } });
  return (
    <>
      <fieldset class="choices">
        <legend>Joomla updater</legend>
        <Check
          label="Serve a Joomla update stream"
          checked={joomla !== null}
          onChange={(on) => onChange({ ...drafts, joomla: on ? NEW_JOOMLA : null })}
        />
        {joomla !== null && (
          <div class="row">
            <Field label="Element" hint="As in the manifest: com_example, mod_example, example.">
              <Input
                name="joomla_element"
                value={joomla.element}
                onValue={(element) => setJoomla({ element })}
              />
            </Field>
            <Field label="Extension type">
              <WordSelect
                name="joomla_type"
                words={TYPE_WORDS}
                value={joomla.type}
                onChange={(type) => setJoomla({ type })}
              />
            </Field>
            <Field label="Client" hint="Plugins, packages, libraries and files: site.">
              <WordSelect
                name="joomla_client"
                words={CLIENT_WORDS}
                value={joomla.client}
                onChange={(client) => setJoomla({ client })}
              />
            </Field>
            <Field label="Plugin group" hint="Plugins only: system, content…">
              <Input
                name="joomla_folder"
                value={joomla.folder}
                onValue={(folder) => setJoomla({ folder })}
              />
            </Field>
            <Field
              label="Joomla versions"
              hint={
                "The versions the extension is tested on, as Joomla's targetplatform pattern " +
                `without '/': [56]\\. for Joomla 5 and 6. Empty: ${DEFAULT_JOOMLA_TARGET_PLATFORM}, ` +
                'Joomla 5 only.'
              }
            >
              <Input
                name="joomla_target_platform"
                value={joomla.target_platform}
                onValue={(target_platform) => setJoomla({ target_platform })}
              />
            </Field>
            <Field label="Minimum PHP" hint="Optional, such as 8.1.">
              <Input
                name="joomla_php_minimum"
                value={joomla.php_minimum}
                onValue={(php_minimum) => setJoomla({ php_minimum })}
              />
            </Field>
          </div>
        )}
      </fieldset>
      <fieldset class="choices">
        <legend>WordPress updater</legend>
        <Check
          label="Serve WordPress update information"
          checked={wordpress !== null}
          onChange={(on) => onChange({ ...drafts, wordpress: on ? NEW_WORDPRESS : null })}
        />
        {wordpress !== null && (
          <div class="row">
            <Field label="Plugin slug" hint="The plugin's directory name.">
              <Input
                name="wordpress_slug"
                value={wordpress.slug}
                onValue={(slug) => setWordPress({ slug })}
              />
            </Field>
            <Field label="Requires WordPress">
              <Input
                name="wordpress_requires"
                value={wordpress.requires}
                onValue={(requires) => setWordPress({ requires })}
              />
            </Field>
            <Field label="Tested up to">
              <Input
                name="wordpress_tested"
                value={wordpress.tested}
                onValue={(tested) => setWordPress({ tested })}
              />
            </Field>
            <Field label="Requires PHP">
              <Input
                name="wordpress_requires_php"
                value={wordpress.requires_php}
                onValue={(requires_php) => setWordPress({ requires_php })}
              />
            </Field>
          </div>
        )}
      </fieldset>
    </>
  );
}
