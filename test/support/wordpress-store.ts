import type { Page } from 'playwright-core';
import { createVersion, uploadFile } from './packages.js';
import { adminOf, API_BASE, unique, type TestSystem } from './system.js';
import { PLUGIN_SLUG, zipSamplePlugin, type PluginBuild } from './wordpress-package.js';
import { ADMIN_PASSWORD, ADMIN_USER, type WordPressSite } from './wordpress-site.js';

/**
 * The store side of the WordPress test, through the management API of a booted system: the
 * sample plugin's product (its WordPress slug), a plan, licenses, and versions published with a
 * zip of the plugin and Markdown release notes.
 */
export class WordPressStore {
  readonly admin;

  private constructor(
    readonly system: TestSystem,
    readonly productId: number,
    private readonly planId: number,
    /** The store's JWK Set, as the plugin pins it. */
    readonly keys: string,
  ) {
    this.admin = adminOf(() => system);
  }

  /** The store of a product named `title` whose WordPress slug is `slug`. */
  static async open(
    system: TestSystem,
    title = 'Sample Licensed Plugin',
    slug = PLUGIN_SLUG,
  ): Promise<WordPressStore> {
    const admin = adminOf(() => system);
    const product = await admin.post('/products', {
      title,
      wordpress: { slug, requires: '5.8', tested: '6.1', requires_php: '7.4' },
    });
    const plan = await admin.post('/plans', {
      // Markup in a name the screen shows: printed as text, never as HTML.
      name: `Sites <b>${unique()}</b>`,
      activation_type: 'domain',
      activation_limit: 3,
    });
    if (product.status !== 201 || plan.status !== 201) {
      throw new Error(`product ${JSON.stringify(product.body)}, plan ${JSON.stringify(plan.body)}`);
    }
    const keys = await fetch(`${system.running.gatewayUrl}${API_BASE}/keys`);
    return new WordPressStore(system, product.body.data.id, plan.body.data.id, await keys.text());
  }

  /** The store's root address, as the plugin is given it. */
  get storeUrl(): string {
    return this.system.running.gatewayUrl;
  }

  /** The plugin built for this store at `version`. */
  build(version: string, files: PluginBuild['files'] = {}): PluginBuild {
    return { storeUrl: this.storeUrl, productId: this.productId, keys: this.keys, version, files };
  }

  /** A license of the plan, expiring on `expiresAt`; its key. */
  async issue(expiresAt: string): Promise<string> {
    const res = await this.admin.post('/licenses', {
      product_id: this.productId,
      plan_id: this.planId,
      expires_at: expiresAt,
    });
    if (res.status !== 201) throw new Error(`license: ${JSON.stringify(res.body)}`);
    return res.body.data.license_key as string;
  }

  /** The identifiers activated on a license, as the store sees them. */
  async activations(key: string): Promise<string[]> {
    const res = await this.admin.get(`/licenses/${key}`);
    if (res.status !== 200) throw new Error(`license ${key}: ${JSON.stringify(res.body)}`);
    return (res.body.data.activations as Array<{ identifier: string }>).map((a) => a.identifier);
  }

  async revoke(key: string): Promise<void> {
    const res = await this.admin.patch(`/licenses/${key}`, { status: 'revoked' });
    if (res.status !== 200) throw new Error(`revoke: ${JSON.stringify(res.body)}`);
  }

  /** Publishes `version` with its release notes and the plugin's zip built in `work`. */
  async publish(work: string, build: PluginBuild, notes: string): Promise<void> {
    const zip = await zipSamplePlugin(work, build);
    await this.upload(build.version, zip, `${PLUGIN_SLUG}-${build.version}.zip`, notes);
  }

  /** Publishes `version` with its release notes and `zip` as its package. */
  async upload(version: string, zip: Buffer, filename: string, notes: string): Promise<void> {
    const created = await createVersion(this.system, this.productId, version, {
      release_notes: notes,
    });
    await uploadFile(this.system, created.id, zip, filename);
  }
}

/** Signs in at wp-login.php (as the site's administrator unless told), landing on `then`. */
export async function signInToWordPress(
  page: Page,
  site: WordPressSite,
  then: string,
  user = ADMIN_USER,
  password = ADMIN_PASSWORD,
) {
  const target = `${site.url}/wp-admin/${then}`;
  await page.goto(`${site.url}/wp-login.php?redirect_to=${encodeURIComponent(target)}`);
  await page.locator('#user_login').fill(user);
  await page.locator('#user_pass').fill(password);
  await Promise.all([page.waitForURL(target), page.locator('#wp-submit').click()]);
}
