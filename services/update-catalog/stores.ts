import type {
  DownloadAccess,
  FileArch,
  FilePlatform,
  JoomlaSettings,
  ReleaseChannel,
  WordPressSettings,
} from '../../libs/contracts/index.js';

/**
 * What the update catalog keeps: products (a product with bundle items is a bundle, spec 2.2),
 * their versions and the package files of each version (spec 2.6, 2.7). The handlers see only
 * these interfaces; `mongo-stores.ts` keeps them in MongoDB. Every method answers copies: changing
 * a returned record changes nothing stored.
 */

export interface ProductRecord {
  id: number;
  title: string;
  requires_license: boolean;
  /** Download API Access (spec 2.7). */
  download_access: DownloadAccess;
  /** The products of a bundle; empty for a plain product. */
  bundle_items: number[];
  /** What the Joomla and WordPress feeds repeat (docs/updaters.md); null: not set. */
  joomla: JoomlaSettings | null;
  wordpress: WordPressSettings | null;
  /** The plan its trials are issued on; null: none (docs/api-decisions.md, "Trials"). */
  trial_plan_id: number | null;
  /** Kept by the store: set when the product is created, and on every change. */
  created_at: Date;
  updated_at: Date;
}

export type NewProduct = Pick<
  ProductRecord,
  'title' | 'requires_license' | 'download_access' | 'bundle_items' | 'joomla' | 'wordpress'
> &
  Partial<Pick<ProductRecord, 'trial_plan_id'>>;
export type ProductChanges = Partial<NewProduct>;

export interface VersionRecord {
  id: number;
  product_id: number;
  version: string;
  release_notes: string | null;
  /** `Y-m-d`, as entered in admin. */
  release_date: string | null;
  published: boolean;
  /** Its release channel, and the share of callers it is offered to (docs/updaters.md). */
  channel: ReleaseChannel;
  rollout_percent: number;
  /**
   * The entitlement a key needs to be offered it (docs/api-decisions.md, "Entitlements"); null
   * or absent (versions stored before): none.
   */
  requires_entitlement?: string | null;
  /**
   * When the version was created in admin. Not what orders versions: spec 4.4 rule 3 goes by the
   * upload time of their files (releases.ts).
   */
  created_at: Date;
}

export type NewVersion = Omit<VersionRecord, 'id'>;
export type VersionChanges = Partial<
  Pick<
    VersionRecord,
    | 'version'
    | 'release_notes'
    | 'release_date'
    | 'published'
    | 'channel'
    | 'rollout_percent'
    | 'requires_entitlement'
  >
>;

export interface PackageFileRecord {
  id: number;
  version_id: number;
  product_id: number;
  filename: string;
  /** Null: the file is for every plan. */
  plan_id: number | null;
  /** Include in auto-updates (spec 2.7). */
  include_in_updates: boolean;
  size: number;
  sha256: string;
  /** Lowercase hex; null for a file uploaded before SHA-512 was recorded. */
  sha512: string | null;
  content_type: string;
  /** Key of the object in the download service's storage. */
  object_key: string;
  /** The operating system and processor it is for; null: any. */
  platform: FilePlatform | null;
  arch: FileArch | null;
  /** The updater's signature of the file (Tauri `.sig`, Sparkle EdDSA), base64. */
  signature: string | null;
  /** A macOS file only: the oldest macOS it runs on (Sparkle's minimumSystemVersion). */
  minimum_system_version: string | null;
  /** The entitlement a key needs to be offered it and to download it; null or absent: none. */
  requires_entitlement?: string | null;
  /** When the package was uploaded: it makes its version the latest (spec 4.4 rule 3). */
  uploaded_at: Date;
}

export type NewPackageFile = Omit<PackageFileRecord, 'id'>;
export type PackageFileChanges = Partial<
  Pick<
    PackageFileRecord,
    | 'plan_id'
    | 'include_in_updates'
    | 'platform'
    | 'arch'
    | 'signature'
    | 'minimum_system_version'
    | 'requires_entitlement'
  >
>;

/**
 * Creating a record takes more than one write (the id sequence, then the insert, again when an
 * id is taken): the store calls `beforeEachWrite` immediately before each of them, so a caller can
 * stop between two (the RPC deadline, libs/contracts/rpc.ts `CallContext`).
 */
export interface CreateOptions {
  beforeEachWrite: () => void;
}

export type ProductCreation =
  | { outcome: 'created'; product: ProductRecord }
  /** The id an admin chose names another product already; nothing was stored. */
  | { outcome: 'id-taken' };

export interface ProductStore {
  find(id: number): Promise<ProductRecord | null>;
  /** Which of `ids` name products. */
  existingIds(ids: readonly number[]): Promise<Set<number>>;
  /** Every product and bundle, by id. */
  list(): Promise<ProductRecord[]>;
  /**
   * A new product under the id an admin chose, or else under the next id of the product
   * sequence, skipping ids admins chose.
   */
  create(options: CreateOptions & { product: NewProduct; id?: number }): Promise<ProductCreation>;
  /** The product after the change; null when there is none with this id. */
  update(id: number, changes: ProductChanges): Promise<ProductRecord | null>;
}

export interface VersionStore {
  find(id: number): Promise<VersionRecord | null>;
  /** The versions of a product, by id; with `published`, only those (spec 4.4 rule 1). */
  list(filter: { product_id: number; published?: boolean }): Promise<VersionRecord[]>;
  /** A new version under the next id of the version sequence. */
  create(options: CreateOptions & { version: NewVersion }): Promise<VersionRecord>;
  /**
   * Changes a version in one atomic update: the version after the change and as it was just
   * before it (what `version.published` tells apart); null when there is none with this id.
   */
  update(
    id: number,
    changes: VersionChanges,
  ): Promise<{ version: VersionRecord; previous: VersionRecord } | null>;
}

export interface PackageFileStore {
  find(id: number): Promise<PackageFileRecord | null>;
  /** The files of one version, or of every version of a product, by id. */
  list(filter: { version_id: number } | { product_id: number }): Promise<PackageFileRecord[]>;
  /**
   * The files of a product ticked Include in auto-updates (spec 4.4 rule 2), of every plan, by
   * id: the whole of what the update check chooses from, kept per product (release-catalog.ts);
   * `chooseRelease` scopes them to a caller's plan (rule 4).
   */
  listInAutoUpdates(filter: { product_id: number }): Promise<PackageFileRecord[]>;
  /** A new file under the next id of the file sequence. */
  create(options: CreateOptions & { file: NewPackageFile }): Promise<PackageFileRecord>;
  update(id: number, changes: PackageFileChanges): Promise<PackageFileRecord | null>;
  /** Forgets the file and answers it; null when there is none with this id. */
  delete(id: number): Promise<PackageFileRecord | null>;
}

export interface CatalogStores {
  products: ProductStore;
  versions: VersionStore;
  packageFiles: PackageFileStore;
}
