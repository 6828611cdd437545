/** The portal's settings as the page was served with them (../portal-config.ts). */
import { readPageConfig, textSetting } from '../../../libs/web/ui/page-config.js';
import type { PortalConfig } from '../portal-config.js';

export type { PortalConfig };

const webAddress = (value: string | null) =>
  value !== null && /^https?:\/\//i.test(value) ? value : null;

/** The config the page was served with: links of http(s) only, a logo only as an image. */
export function portalConfig(): PortalConfig {
  const config = readPageConfig();
  const logo = textSetting(config, 'logo');
  return {
    store_name: textSetting(config, 'store_name'),
    store_url: webAddress(textSetting(config, 'store_url')),
    renew_url: webAddress(textSetting(config, 'renew_url')),
    logo: logo !== null && /^data:image\/[a-z+.-]+;base64,/.test(logo) ? logo : null,
  };
}
