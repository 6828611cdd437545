import { z } from 'zod';

/**
 * What the updaters a seller already ships with (Joomla, WordPress, electron-updater, Sparkle,
 * Tauri) need to know of a product, a version and a package file (docs/updaters.md).
 */

// ---- Release channels and staged rollouts ----

/** The channels of a version, from the most to the least stable. */
export const releaseChannels = ['stable', 'rc', 'beta', 'alpha', 'dev'] as const;
export const ReleaseChannel = z.enum(releaseChannels);
export type ReleaseChannel = z.infer<typeof ReleaseChannel>;

/** The share of callers, 0 to 100, a version is offered to (docs/updaters.md: rollouts). */
export const RolloutPercent = z.number().int().min(0).max(100);

// ---- Package file targets ----

export const filePlatforms = ['linux', 'windows', 'darwin'] as const;
/** The operating system a package file is for; null: any. */
export const FilePlatform = z.enum(filePlatforms);
export type FilePlatform = z.infer<typeof FilePlatform>;

export const fileArchitectures = ['x86_64', 'aarch64', 'i686', 'armv7', 'universal'] as const;
/** The processor a package file is for; null: any (`universal`: a macOS universal binary). */
export const FileArch = z.enum(fileArchitectures);
export type FileArch = z.infer<typeof FileArch>;

/**
 * The updater's signature of a package file, base64: the text of a Tauri `.sig` file, or a
 * Sparkle EdDSA (Ed25519) signature.
 */
export const FileSignature = z
  .string()
  .min(1)
  .max(4096)
  .regex(/^[A-Za-z0-9+/]+={0,2}$/, { message: 'must be base64' });

/**
 * The oldest macOS a macOS file runs on, as Sparkle's `sparkle:minimumSystemVersion` reads it
 * (the app's `LSMinimumSystemVersion`): `12.0`, `10.13`, `14.2.1`.
 */
export const MinimumSystemVersion = z
  .string()
  .regex(/^\d{1,3}(\.\d{1,3}){0,2}$/, { message: 'must be a macOS version such as 12.0 or 10.13' });

/**
 * What is wrong with a file's minimum macOS, or null: only a macOS file has one (the appcast,
 * the one feed that reads it, lists macOS files; docs/updaters/sparkle.md).
 */
export function minimumSystemVersionProblem(file: {
  platform: FilePlatform | null;
  minimum_system_version: string | null;
}): string | null {
  return file.minimum_system_version !== null && file.platform !== 'darwin'
    ? 'minimum_system_version: only a macOS file (platform darwin) has a minimum macOS version.'
    : null;
}

// ---- Product settings ----

/** A version as PHP's `version_compare` and WordPress read it: digits and dots. */
const PlatformVersion = z
  .string()
  .regex(/^\d{1,4}(\.\d{1,4}){0,3}$/, { message: 'must be a version such as 8.1 or 6.4.2' });

export const joomlaExtensionTypes = [
  'component',
  'module',
  'plugin',
  'template',
  'library',
  'package',
  'file',
  'language',
] as const;

/**
 * A pattern Joomla can use: it is matched as `preg_match('/^' . pattern . '/', JVERSION)`, so a
 * `/` ends the pattern early and breaks every match.
 */
const TargetPlatformPattern = z
  .string()
  .min(1)
  .max(100)
  .refine((value) => !value.includes('/'), {
    message: 'must not contain "/" (Joomla wraps the pattern in slashes)',
  })
  .refine(
    (value) => {
      try {
        new RegExp(`^${value}`);
        return true;
      } catch {
        return false;
      }
    },
    { message: 'must be a valid regular expression' },
  );

/** Joomla's extension settings of a product: what its update stream must repeat to match. */
export const JoomlaSettings = z
  .strictObject({
    /** The extension's element: `com_example`, `mod_example`, `example` (a plugin), `pkg_example`. */
    element: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,100}$/, { message: 'must be letters, digits, "_", "-" or "."' }),
    type: z.enum(joomlaExtensionTypes),
    client: z.enum(['site', 'administrator']).default('site'),
    /** A plugin's group (`system`, `content`...); only plugins have one. */
    folder: z
      .string()
      .regex(/^[a-z0-9_-]{1,100}$/, { message: 'must be a plugin group such as system' })
      .nullable()
      .default(null),
    /**
     * The Joomla versions the seller declares the package installs on, as Joomla's targetplatform
     * pattern; null, none declared: the stream names DEFAULT_JOOMLA_TARGET_PLATFORM (bounds.ts).
     */
    target_platform: TargetPlatformPattern.nullable().default(null),
    php_minimum: PlatformVersion.nullable().default(null),
  })
  .superRefine((settings, context) => {
    if (settings.type === 'plugin' && settings.folder === null) {
      context.addIssue({ code: 'custom', path: ['folder'], message: 'a plugin needs its group' });
    }
    if (settings.type !== 'plugin' && settings.folder !== null) {
      context.addIssue({ code: 'custom', path: ['folder'], message: 'only plugins have a group' });
    }
    // Joomla records plugins, packages, libraries and files under the site client: a stream that
    // says otherwise never matches the installed extension, so the update is never shown.
    const siteOnly = ['plugin', 'package', 'library', 'file'].includes(settings.type);
    if (siteOnly && settings.client !== 'site') {
      context.addIssue({
        code: 'custom',
        path: ['client'],
        message: `a ${settings.type} is installed under the site client`,
      });
    }
  });
export type JoomlaSettings = z.infer<typeof JoomlaSettings>;

/** WordPress's plugin settings of a product (plugin-update-checker and EDD's updater). */
export const WordPressSettings = z.strictObject({
  /** The plugin's directory name. */
  slug: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,99}$/, {
    message: 'must be lowercase letters, digits, "-" or "_"',
  }),
  requires: PlatformVersion.nullable().default(null),
  tested: PlatformVersion.nullable().default(null),
  requires_php: PlatformVersion.nullable().default(null),
});
export type WordPressSettings = z.infer<typeof WordPressSettings>;
