/** The portal's settings as the page was served with them (../portal-settings.ts). */
import { readPageConfig, textSetting } from '../../../libs/web/ui/page-config.js';
import type { PortalSettings } from '../portal-settings.js';

export type { PortalSettings };

const webAddress = (value: string | null) =>
  value !== null && /^https?:\/\//i.test(value) ? value : null;

/** The config the page was served with: links of http(s) only, a logo only as an image. */
export function servedSettings(): PortalSettings {
  const config = readPageConfig();
  const logo = textSetting(config, 'logo');
  return {
    store_name: textSetting(config, 'store_name'),
    store_url: webAddress(textSetting(config, 'store_url')),
    renew_url: webAddress(textSetting(config, 'renew_url')),
    logo: logo !== null && /^data:image\/[a-z+.-]+;base64,/.test(logo) ? logo : null,
  };
}
