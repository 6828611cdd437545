import type {
  PackageFile,
  Product,
  SelectedFile,
  UpdateInfo,
  Version,
} from '../../libs/contracts/index.js';
import {
  downloadRequires,
  downloadUrl,
  releaseDate,
  type Release,
  type ReportedLicenseState,
} from './releases.js';
import type { PackageFileRecord, ProductRecord, VersionRecord } from './stores.js';

/** Response shapes built from stored records: the contract's field names and types. */

export function productView(product: ProductRecord): Product {
  return {
    id: product.id,
    title: product.title,
    requires_license: product.requires_license,
    download_access: product.download_access,
    bundle_items: [...product.bundle_items],
    joomla: product.joomla && { ...product.joomla },
    wordpress: product.wordpress && { ...product.wordpress },
    trial_plan_id: product.trial_plan_id ?? null,
    created_at: product.created_at.toISOString(),
    updated_at: product.updated_at.toISOString(),
  };
}

export function fileView(file: PackageFileRecord): PackageFile {
  return {
    id: file.id,
    version_id: file.version_id,
    product_id: file.product_id,
    filename: file.filename,
    plan_id: file.plan_id,
    include_in_updates: file.include_in_updates,
    size: file.size,
    sha256: file.sha256,
    sha512: file.sha512,
    content_type: file.content_type,
    object_key: file.object_key,
    platform: file.platform,
    arch: file.arch,
    signature: file.signature,
    minimum_system_version: file.minimum_system_version,
    requires_entitlement: file.requires_entitlement ?? null,
    uploaded_at: file.uploaded_at.toISOString(),
  };
}

/** A version without its files; `uploadedAt`: when its newest file was uploaded (null: none). */
function versionView(version: VersionRecord, uploadedAt: Date | null): Omit<Version, 'files'> {
  return {
    id: version.id,
    product_id: version.product_id,
    version: version.version,
    release_notes: version.release_notes,
    release_date: version.release_date,
    published: version.published,
    channel: version.channel,
    rollout_percent: version.rollout_percent,
    requires_entitlement: version.requires_entitlement ?? null,
    created_at: version.created_at.toISOString(),
    uploaded_at: uploadedAt?.toISOString() ?? null,
  };
}

/** The upload time of a version: that of its newest file (null without files). */
function newestUpload(files: readonly PackageFileRecord[]): Date | null {
  let newest: Date | null = null;
  for (const file of files) if (!newest || file.uploaded_at > newest) newest = file.uploaded_at;
  return newest;
}

/** A version with its files (`files`: those of this version, by id). */
export function versionWithFilesView(
  version: VersionRecord,
  files: readonly PackageFileRecord[],
): Version {
  return { ...versionView(version, newestUpload(files)), files: files.map(fileView) };
}

/**
 * The versions of a product with their files, most recently uploaded first; a version without
 * files yet counts from its creation.
 */
export function versionListView(
  versions: readonly VersionRecord[],
  files: readonly PackageFileRecord[],
): { versions: Version[] } {
  const listed = versions.map((v) =>
    versionWithFilesView(
      v,
      files.filter((f) => f.version_id === v.id),
    ),
  );
  const at = (v: Version) => Date.parse(v.uploaded_at ?? v.created_at);
  return { versions: listed.sort((a, b) => at(b) - at(a) || b.id - a.id) };
}

/** The file a download gets (spec 4.4 rules 1-5), with its product. */
export function selectedFileView(
  product: ProductRecord,
  release: Release<VersionRecord, PackageFileRecord> | null,
): SelectedFile {
  return {
    product: productView(product),
    selection: release && {
      version: versionView(release.version, release.uploadedAt),
      file: fileView(release.file),
    },
  };
}

/** Spec 4.4 response 2: the product has no version for this caller. */
export function noUpdateView(product: ProductRecord): UpdateInfo {
  return {
    update_available: false,
    requires_license: product.requires_license,
    download_requires: downloadRequires(product.download_access),
    sha256: null,
  };
}

/**
 * Spec 4.4 response 1, with every field of 2.6; a covering key's license state (rule 6) is added
 * after them.
 */
export function updateView({
  product,
  release,
  downloadsUrl,
  licenseState,
  newer = null,
}: {
  product: ProductRecord;
  release: Release<VersionRecord, PackageFileRecord>;
  /** The public URL of the download endpoint, without the product id. */
  downloadsUrl: string;
  licenseState: ReportedLicenseState | null;
  /** A newer version than the one a kept expired license gets; null when none. */
  newer?: string | null;
}): UpdateInfo {
  const info: UpdateInfo = {
    update_available: true,
    name: product.title,
    version: release.version.version,
    download_url: downloadUrl(product, downloadsUrl),
    download_requires: downloadRequires(product.download_access),
    release_notes: release.version.release_notes,
    date: releaseDate(release.version.release_date, release.uploadedAt),
    file_size: release.file.size,
    sha256: release.file.sha256,
    requires_license: product.requires_license,
  };
  if (!licenseState) return info;
  const renewal =
    newer === null ? {} : { newer_version: newer, newer_requires: 'renewal' as const };
  return { ...info, ...licenseState, ...renewal };
}
