import type { Request, Response } from 'express';
import type { z } from 'zod';
import {
  API_BASE,
  forbiddenDownloadCodes,
  type FeedAnswer,
  type FeedRequest,
} from '../../../libs/contracts/index.js';
import { defineRoute, type FieldsSchema, type Route } from '../../../libs/http/index.js';
import { publicErrors } from '../requests/form-route.js';
import type { GatewayDeps } from '../gateway-deps.js';
import { FeedHeaders, feedCaller } from './feed-inputs.js';

type FeedOwnFields<R extends FeedRequest> = Omit<
  R,
  'product_id' | 'license_key' | 'identifier' | 'key_in_query' | 'api_url' | 'if_none_match'
>;

export interface FeedRouteDefinition<
  R extends FeedRequest,
  Params extends FieldsSchema,
  Query extends FieldsSchema,
> {
  /** The path below `{api_base}`. */
  path: string;
  operationId: string;
  summary: string;
  /** The feed's body as documented: text of a media type (XML, YAML), or JSON of a schema. */
  body: { text: string } | { json: z.ZodType };
  params: Params;
  query: Query;
  /** The feed's own fields of the catalog's request, from what the route parsed and the settings. */
  request: (
    params: z.output<Params>,
    query: z.output<Query>,
    deps: GatewayDeps,
  ) => FeedOwnFields<R> & {
    product_id: number;
  };
  /** The key the path names, for a feed whose URL is the key's own (Joomla's Install from URL). */
  pathKey?: (params: z.output<Params>) => string;
  /** 204: the feed can say "nothing newer" (Tauri). */
  noContent?: string;
  /** What the feed's refusals are (401/403 of spec 4.5 for the desktop updaters). */
  errors?: Route['errors'];
}

/**
 * A desktop feed's refusals (Sparkle, Tauri): a key that may not download the product gets the
 * refusal of spec 4.5 rather than an update it could not install.
 */
export const downloadRefusals: Route['errors'] = {
  403: {
    codes: forbiddenDownloadCodes,
    description: 'The key may not download this product (spec 4.5).',
  },
  404: {
    codes: ['NOT_FOUND', 'ACTIVATION_NOT_FOUND'],
    description: 'No such product; the identifier sent is not activated.',
  },
};

/** Writes the catalog's answer: the body with its ETag, a 304, or a 204. */
export function sendFeedAnswer(res: Response, answer: FeedAnswer): void {
  // Keyed answers differ per caller: never kept by a shared cache, always revalidated.
  res.set({ 'Cache-Control': 'private, no-cache', Vary: 'Authorization' });
  if (answer.status === 204) {
    res.status(204).end();
    return;
  }
  res.setHeader('ETag', answer.etag);
  if (answer.status === 304) {
    res.status(304).end();
    return;
  }
  res.status(200).type(answer.content_type).send(answer.body);
}

/**
 * A feed of an updater (docs/updaters.md): a public GET under the update check's per-IP limit,
 * whose key, identifier and If-None-Match are read the same way by every feed, answered by the
 * update catalog (`update-catalog.feed`).
 */
export function feedRoute<
  R extends FeedRequest,
  Params extends FieldsSchema,
  Query extends FieldsSchema,
>(definition: FeedRouteDefinition<R, Params, Query>): Route<GatewayDeps> {
  return defineRoute({
    method: 'get',
    path: `${API_BASE}${definition.path}`,
    operationId: definition.operationId,
    summary: definition.summary,
    tag: 'Updater feeds',
    access: 'public',
    params: definition.params,
    query: definition.query,
    headers: FeedHeaders,
    success: {
      200: { description: 'The feed.', ...definition.body },
      ...(definition.noContent ? { 204: { description: definition.noContent, empty: true } } : {}),
      304: { description: 'The copy named by If-None-Match is current.', empty: true },
    },
    errors: {
      400: {
        codes: ['INVALID_REQUEST'],
        description:
          'A bad path or query, two different keys, or an Authorization of another scheme.',
      },
      404: { codes: ['NOT_FOUND'], description: 'No such product.' },
      ...definition.errors,
      429: publicErrors.rateLimited('More than 60 update checks in 60 seconds (spec 8).'),
      500: publicErrors.internal,
    },
    before: ({ rateLimits }) => [rateLimits.updates],
    handle: async ({ params, query, headers }, deps, req: Request, res) => {
      const { transport, publicUrl } = deps;
      const caller = feedCaller(
        query as Parameters<typeof feedCaller>[0],
        headers,
        definition.pathKey?.(params) ?? null,
      );
      const answer = await transport.call('update-catalog.feed', {
        ...definition.request(params, query, deps),
        ...caller,
        api_url: `${publicUrl(req).replace(/\/+$/, '')}${API_BASE}`,
        if_none_match: headers['If-None-Match'] ?? null,
      } as FeedRequest);
      sendFeedAnswer(res, answer);
    },
  });
}
