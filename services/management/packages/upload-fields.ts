import { z } from 'zod';
import {
  BooleanText,
  EntitlementCode,
  FileArch,
  FilePlatform,
  FileSignature,
  IdText,
  invalidRequest,
  MinimumSystemVersion,
  minimumSystemVersionProblem,
} from '../../../libs/contracts/index.js';
import { parseWith } from '../../../libs/http/index.js';

/**
 * The fields of a package upload (multipart, spec 2.7's files) beside the file itself: each
 * checked as it arrives and read once the body is whole.
 */

/** `plan_id` of an upload: a plan id, or empty (or `null`) for every plan. */
const UploadPlanId = z
  .string()
  .meta({ description: 'Restricts the file to this plan (spec 4.4 rule 4); empty: every plan.' })
  .transform((value) => (value === '' || value === 'null' ? null : value))
  .pipe(IdText.nullable());

const IncludeInUpdates = BooleanText.meta({
  description: 'Include in auto-updates (spec 2.7); default true.',
});

/** Empty (or `null`) is no choice. */
const emptyIsNull = (value: string) => (value === '' || value === 'null' ? null : value);
const UploadPlatform = z.string().transform(emptyIsNull).pipe(FilePlatform.nullable());
const UploadArch = z.string().transform(emptyIsNull).pipe(FileArch.nullable());
const UploadSignature = z.string().transform(emptyIsNull).pipe(FileSignature.nullable());
const UploadMinimumSystemVersion = z
  .string()
  .transform(emptyIsNull)
  .pipe(MinimumSystemVersion.nullable());
const UploadEntitlement = z.string().transform(emptyIsNull).pipe(EntitlementCode.nullable());

/** What an upload's multipart body carries; each field is parsed with its schema as it arrives. */
export const FileUpload = z.object({
  file: z.string().meta({ format: 'binary', description: 'The package file.' }),
  plan_id: UploadPlanId.optional(),
  include_in_updates: IncludeInUpdates.optional(),
  platform: UploadPlatform.optional().meta({
    description: 'The operating system the file is for: linux, windows or darwin; empty: any.',
  }),
  arch: UploadArch.optional().meta({
    description:
      'The processor the file is for: x86_64, aarch64, i686, armv7 or universal; empty: any.',
  }),
  signature: UploadSignature.optional().meta({
    description: "The updater's signature of the file, base64 (a Tauri .sig, a Sparkle EdDSA).",
  }),
  minimum_system_version: UploadMinimumSystemVersion.optional().meta({
    description:
      'A macOS file (platform darwin) only: the oldest macOS it runs on, such as 12.0 ' +
      "(the app's LSMinimumSystemVersion, Sparkle's minimumSystemVersion); empty: any.",
  }),
  requires_entitlement: UploadEntitlement.optional().meta({
    description: 'The entitlement a key needs to be offered and to download the file; empty: none.',
  }),
});

/** The form fields an upload may carry beside `file`. */
export const UPLOAD_FIELDS = new Set(
  Object.keys(FileUpload.shape).filter((name) => name !== 'file'),
);

/** The upload's fields beside `file`, parsed; an absent field takes its default. */
export interface UploadChoices {
  planId: number | null;
  includeInUpdates: boolean;
  platform: FilePlatform | null;
  arch: FileArch | null;
  signature: string | null;
  minimumSystemVersion: string | null;
  requiresEntitlement: string | null;
}

/** Checks one field as it arrives, so a bad field stops the upload early; null: not a plan. */
export function checkUploadField(name: string, value: string): { planId: number | null } {
  const schema = FileUpload.shape[name as keyof typeof FileUpload.shape];
  const parsed: unknown = parseWith(schema, value, name);
  return { planId: name === 'plan_id' ? (parsed as number | null) : null };
}

const platformOf = (fields: ReadonlyMap<string, string>) =>
  parseWith(UploadPlatform, fields.get('platform') ?? '', 'platform');
const minimumSystemVersionOf = (fields: ReadonlyMap<string, string>) =>
  parseWith(
    UploadMinimumSystemVersion,
    fields.get('minimum_system_version') ?? '',
    'minimum_system_version',
  );

/**
 * Only a macOS file has a minimum macOS (libs/contracts/catalog/updaters.ts): checked as soon as both
 * fields have arrived, so the upload stops early, and once the body is whole (`complete`), when
 * a field left out counts as empty.
 */
export function checkUploadTarget(fields: ReadonlyMap<string, string>, complete: boolean): void {
  if (!complete && !(fields.has('platform') && fields.has('minimum_system_version'))) return;
  const problem = minimumSystemVersionProblem({
    platform: platformOf(fields),
    minimum_system_version: minimumSystemVersionOf(fields),
  });
  if (problem !== null) throw invalidRequest(problem);
}

/** The upload's fields, parsed and checked together once the body is whole. */
export function uploadChoices(fields: ReadonlyMap<string, string>): UploadChoices {
  checkUploadTarget(fields, true);
  return {
    planId: parseWith(UploadPlanId, fields.get('plan_id') ?? '', 'plan_id'),
    includeInUpdates: parseWith(
      IncludeInUpdates,
      fields.get('include_in_updates') ?? 'true',
      'include_in_updates',
    ),
    platform: platformOf(fields),
    arch: parseWith(UploadArch, fields.get('arch') ?? '', 'arch'),
    signature: parseWith(UploadSignature, fields.get('signature') ?? '', 'signature'),
    minimumSystemVersion: minimumSystemVersionOf(fields),
    requiresEntitlement: parseWith(
      UploadEntitlement,
      fields.get('requires_entitlement') ?? '',
      'requires_entitlement',
    ),
  };
}

/** Media types of common package formats, for parts sent as application/octet-stream. */
const TYPES_BY_EXTENSION: Record<string, string> = {
  zip: 'application/zip',
  gz: 'application/gzip',
  tgz: 'application/gzip',
  tar: 'application/x-tar',
  xz: 'application/x-xz',
  bz2: 'application/x-bzip2',
  '7z': 'application/x-7z-compressed',
  jar: 'application/java-archive',
  exe: 'application/vnd.microsoft.portable-executable',
  msi: 'application/x-msi',
  dmg: 'application/x-apple-diskimage',
  deb: 'application/vnd.debian.binary-package',
  rpm: 'application/x-rpm',
};

export function contentTypeOf(filename: string, sent: string): string {
  const type = sent.split(';')[0]?.trim().toLowerCase() ?? '';
  if (/^[a-z0-9][\w!#$&^.+-]{0,126}\/[a-z0-9][\w!#$&^.+-]{0,126}$/.test(type)) {
    if (type !== 'application/octet-stream') return type;
  }
  const extension = /\.([A-Za-z0-9]+)$/.exec(filename)?.[1]?.toLowerCase() ?? '';
  return TYPES_BY_EXTENSION[extension] ?? 'application/octet-stream';
}
