import { loadConfig } from '../../../libs/config/index.js';
import {
  DEFAULT_MAIL_STORE_NAME,
  mailSender,
  mailStoreName,
  portalPageUrl,
} from '../../../services/stores/mail/mail-settings.js';

/** docs/stores.md: The buyer's e-mail (settings). */

describe("the buyer's e-mail's settings", () => {
  test('STORE_NAME unset: the message is signed by the default store name', () => {
    expect(mailStoreName(loadConfig({}))).toBe(DEFAULT_MAIL_STORE_NAME);
    expect(mailStoreName(loadConfig({ STORE_NAME: 'Plugin Shop' }))).toBe('Plugin Shop');
  });

  test('MAIL_FROM as written; unset, the store name at no-reply@ the public host', () => {
    expect(mailSender(loadConfig({ MAIL_FROM: 'Shop <sales@shop.example>' }))).toBe(
      'Shop <sales@shop.example>',
    );
    expect(
      mailSender(
        loadConfig({ STORE_NAME: 'Plugin Shop', PUBLIC_URL: 'https://lic.shop.example:8443/x' }),
      ),
    ).toEqual({ name: 'Plugin Shop', address: 'no-reply@lic.shop.example' });
  });

  test('a public address that is an IP, or none, gives no-reply@localhost', () => {
    for (const PUBLIC_URL of ['http://192.0.2.7:8080', 'http://[2001:db8::1]/']) {
      expect(mailSender(loadConfig({ PUBLIC_URL }))).toEqual({
        name: DEFAULT_MAIL_STORE_NAME,
        address: 'no-reply@localhost',
      });
    }
    expect(mailSender(loadConfig({}))).toMatchObject({ address: 'no-reply@localhost' });
  });

  test("the portal link is PUBLIC_URL's /portal, or the gateway's default address", () => {
    expect(portalPageUrl(loadConfig({ PUBLIC_URL: 'https://shop.example/licensing/' }))).toBe(
      'https://shop.example/licensing/portal',
    );
    expect(portalPageUrl(loadConfig({ PORT: '9090' }))).toBe('http://localhost:8080/portal');
  });
});
