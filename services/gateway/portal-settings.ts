/**
 * The customer portal's settings (README: Configuration, STORE_*): the store the portal speaks
 * for, and where a customer goes next. The gateway writes them into the page (routes.ts); the
 * page reads them (portal/served-settings.ts).
 */
export interface PortalSettings {
  /** STORE_NAME: the portal's heading and title; null: none. */
  store_name: string | null;
  /** STORE_URL: a link beside the name, and where a new license is bought. */
  store_url: string | null;
  /** RENEW_URL, else STORE_URL: where an expired license is renewed. */
  renew_url: string | null;
  /** STORE_LOGO_FILE, as a `data:` URL of an image. */
  logo: string | null;
}

export const NO_STORE: PortalSettings = {
  store_name: null,
  store_url: null,
  renew_url: null,
  logo: null,
};
