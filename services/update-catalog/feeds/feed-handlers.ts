import { LicensingError, refusal } from '../../../libs/contracts/index.js';
import type { ServedHandlers, Transport } from '../../../libs/transport/index.js';
import type { ReleaseCatalog } from '../release-catalog.js';
import { feedAnswer } from './feed-answer.js';
import { feedContext } from './feed-context.js';
import { renderFeed } from './renderers.js';

/**
 * The updaters' feeds (docs/updaters.md), answered from the in-memory catalog like the JSON
 * update check: one read of the license's coverage for a keyed caller, nothing else.
 */
export function createFeedHandlers({
  releases,
  transport,
}: {
  releases: ReleaseCatalog;
  transport: Pick<Transport, 'call'>;
}): Pick<ServedHandlers<'update-catalog'>, 'update-catalog.feed'> {
  return {
    'update-catalog.feed': async (request) => {
      const found = await releases.find(request.product_id);
      if (!found) {
        throw LicensingError.from(
          refusal('NOT_FOUND', `Product ${request.product_id} does not exist.`),
        );
      }
      const { license_key, product_id, identifier } = request;
      const coverage = license_key
        ? await transport.call('license.coverage', { license_key, product_id, identifier })
        : null;
      const rendered = renderFeed(feedContext(request, found, coverage));
      return feedAnswer(rendered, request.if_none_match);
    },
  };
}
