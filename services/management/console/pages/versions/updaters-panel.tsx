/** A product's "Updaters" panel: each feed URL with the snippet to paste (docs/updaters.md). */
import { useApi } from '../../shared/api/admin-api.js';
import { useLoad } from '../../shared/hooks/hooks.js';
import { LoadView } from '../../shared/components/notices.js';
import { useProductsAndPlans } from '../../shared/hooks/products-and-plans.js';
import {
  JOOMLA_IDENTIFIER_NOTE,
  publicApiBase,
  updaterFeeds,
  wordpressPortWarning,
} from './updater-snippets.js';

export function UpdatersPanel({ productId }: { productId: number }) {
  const api = useApi();
  const { products } = useProductsAndPlans();
  const keys = useLoad(() => api.call('signingKeys'), [api]);
  const product = products.find((p) => p.id === productId);
  if (!product) return null;
  return (
    <details class="panel" aria-labelledby="updaters-heading">
      <summary id="updaters-heading">Updaters</summary>
      <p class="muted">
        Point each updater at its feed. Each feed takes the license key as the updater sends it and
        offers what the JSON update check offers.
      </p>
      {product.download_access === 'activated_identifier' && (
        <p class="notice" data-joomla-identifier>
          {JOOMLA_IDENTIFIER_NOTE}
        </p>
      )}
      <LoadView loaded={keys} what="the public address">
        {(data) => {
          const base = publicApiBase(data.key_set_url);
          const portWarning = wordpressPortWarning(base);
          return (
            <>
              {portWarning !== null && (
                <p class="notice" data-wordpress-port>
                  {portWarning}
                </p>
              )}
              {base.startsWith('/') && (
                <p class="muted">
                  The public address is not configured (PUBLIC_URL): the URLs below start at the
                  path.
                </p>
              )}
              {updaterFeeds(base, product).map((feed) => (
                <section key={feed.updater} aria-label={`${feed.updater} feed`} data-feed>
                  <h3>{feed.updater}</h3>
                  <p class="mono feed-url" data-feed-url>
                    {feed.url}
                  </p>
                  <p class="hint">{feed.where}</p>
                  <pre class="mono snippet" tabIndex={0} aria-label={`${feed.updater} snippet`}>
                    <code>{feed.snippet}</code>
                  </pre>
                </section>
              ))}
            </>
          );
        }}
      </LoadView>
    </details>
  );
}
