import request from 'supertest';
import { createLogger } from '../../libs/logging/index.js';
import { InProcessBus, InProcessTransport } from '../../libs/transport/index.js';
import { gatewayOn } from '../support/system.js';

/**
 * The customer portal's page as the gateway serves it: the store's settings (STORE_NAME,
 * STORE_URL, RENEW_URL, STORE_LOGO_FILE) reach the page escaped, in a data block the page reads,
 * under the same Content-Security-Policy as every page; unset, the page names no store.
 */

const transport = new InProcessTransport(new InProcessBus(), {
  timeoutMs: 2000,
  logger: createLogger('test', 'silent'),
});
afterAll(() => transport.close());

const MARKUP = 'Plugin Shop </script><script>alert(1)</script> & Co';
const LOGO = 'data:image/png;base64,iVBORw0KGgo=';

describe('the portal page and its settings', () => {
  test("the store's name is the page's title, escaped, and every setting is in its config, where nothing can close the element", async () => {
    const app = await gatewayOn(transport, {
      portal: {
        store_name: MARKUP,
        store_url: 'https://shop.example/',
        renew_url: 'https://shop.example/renew',
        logo: LOGO,
      },
    });
    const page = await request(app).get('/portal');
    expect(page.status).toBe(200);
    expect(page.text).toContain(
      '<title>Your license: Plugin Shop &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co</title>',
    );
    const block = /<script type="application\/json" id="page-config">(.*?)<\/script>/.exec(
      page.text,
    );
    expect(block).not.toBeNull();
    expect(block![1]).not.toMatch(/[<>&]/);
    expect(JSON.parse(block![1]!)).toEqual({
      store_name: MARKUP,
      store_url: 'https://shop.example/',
      renew_url: 'https://shop.example/renew',
      logo: LOGO,
    });
    // The same policy as every page: no inline script runs, images from the page or data: only.
    expect(page.headers['content-security-policy']).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
        "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; " +
        "frame-ancestors 'none'",
    );
  });

  test('unset, the page names no store and links nowhere', async () => {
    const page = await request(await gatewayOn(transport)).get('/portal');
    expect(page.text).toContain('<title>Your license</title>');
    const block = /id="page-config">(.*?)<\/script>/.exec(page.text);
    expect(JSON.parse(block![1]!)).toEqual({
      store_name: null,
      store_url: null,
      renew_url: null,
      logo: null,
    });
  });
});
