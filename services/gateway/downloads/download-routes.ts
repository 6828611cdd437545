import type { Request, Response } from 'express';
import { z } from 'zod';
import {
  forbiddenDownloadCodes,
  type AuthorizeDownloadRequest,
} from '../../../libs/contracts/index.js';
import { defineRoute, type Route } from '../../../libs/http/index.js';
import { API_BASE } from '../../../libs/contracts/api-base.js';
import { clientIp } from '../requests/client-ip.js';
import { keyOfAuthorization, oneLicenseKey } from '../requests/license-authorization.js';
import type { DownloadStage } from './download-refusals.js';
import { relay } from './download-relay.js';
import { publicErrors } from '../requests/form-route.js';
import { FeedHeaders, feedCaller } from '../feeds/feed-inputs.js';
import type { GatewayDeps } from '../gateway-deps.js';
import { DownloadHeaders, DownloadQuery, PinnedFilePath, ProductPath } from '../requests/inputs.js';

const header = (description: string, schema: z.ZodType = z.string()) =>
  schema.meta({ description });

/** Headers of a served file (docs/api-decisions.md, Downloads). */
const fileHeaders = {
  'Content-Length': header('Bytes in this response.', z.string().regex(/^[0-9]+$/)),
  'Content-Disposition': header(
    'attachment; filename="..." (with filename* in UTF-8 for other characters).',
  ),
  ETag: header('The SHA-256 of the whole file in hex, quoted. Send it as If-Range to resume.'),
  'X-Checksum-SHA256': header(
    'The SHA-256 of the whole file, hex.',
    z.string().regex(/^[0-9a-f]{64}$/),
  ),
  'Repr-Digest': header('RFC 9530: sha-256=:<base64>: of the whole file.'),
  'Accept-Ranges': header('bytes', z.literal('bytes')),
};

/** What both downloads answer: the file, a range of it, a redirect to it, or a JSON error. */
const answers = {
  success: {
    200: { description: 'The whole file.', file: true, headers: z.object(fileHeaders) },
    206: {
      description: 'The requested byte range of the file.',
      file: true,
      headers: z.object({ ...fileHeaders, 'Content-Range': header('bytes start-end/size') }),
    },
    302: {
      description:
        'DOWNLOAD_DELIVERY=redirect: the file is read from the object store at Location, a URL ' +
        'for this one file valid 60 seconds (Range works there too).',
      empty: true,
      headers: z.object({ Location: header('The presigned URL of the file in the object store.') }),
    },
  },
  errors: {
    400: {
      codes: ['INVALID_REQUEST'],
      description:
        'A bad product id or query string (a repeated or bracketed field, a value over 255 ' +
        'characters, two different keys, a blank key).',
    },
    403: {
      codes: forbiddenDownloadCodes,
      description:
        'No key, an unknown key or a license that is not active (LICENSE_INVALID); a key for ' +
        'another product; an expired license; an identifier needed and not sent; Account only.',
    },
    404: {
      codes: ['NOT_FOUND', 'ACTIVATION_NOT_FOUND'],
      description:
        'No such product, no file for the caller, or its file missing from storage ' +
        '(NOT_FOUND); the identifier sent is not activated (ACTIVATION_NOT_FOUND).',
    },
    416: {
      codes: ['RANGE_NOT_SATISFIABLE'],
      description: 'The range starts at or after the end of the file.',
      headers: z.object({ 'Content-Range': header('bytes */size') }),
    },
    429: publicErrors.rateLimited('Too many downloads from this address.'),
    500: publicErrors.internal,
  },
} as const;

/**
 * Decides over RPC (the download service logs the outcome), then serves: the bytes come from
 * the download service's storage through here, so the client gets a 200 (or 206) with the
 * file, or a JSON error, from the one public address.
 */
async function serve(
  request: Omit<AuthorizeDownloadRequest, 'ip' | 'delivery' | 'method'>,
  sent: z.output<typeof DownloadHeaders>,
  { transport, downloadDelivery }: GatewayDeps,
  req: Request,
  res: Response,
): Promise<void> {
  const licenseKey = oneLicenseKey(request.license_key, keyOfAuthorization(sent.Authorization));
  res.locals.download = { stage: 'decided' } satisfies DownloadStage;
  const authorized = await transport.call('download.authorize', {
    ...request,
    license_key: licenseKey,
    ip: clientIp(req),
    delivery: downloadDelivery,
    method: req.method === 'HEAD' ? 'HEAD' : 'GET',
  });
  res.locals.download = { stage: 'relaying', logId: authorized.log_id } satisfies DownloadStage;
  if (downloadDelivery === 'redirect') {
    // The client reads the object from the store itself, Range and all (docs/api-decisions.md).
    res.set({ 'Cache-Control': 'no-store', Location: authorized.url });
    res.status(302).end();
    return;
  }
  await relay(req, res, authorized, sent);
}

/**
 * Spec 4.5: `GET {api_base}/downloads/{product_id}`. The license key comes as `dlid` (CMS
 * updaters) or `license_key`, the identifier as `identifier`.
 */
export const downloadRoute: Route<GatewayDeps> = defineRoute({
  method: 'get',
  path: `${API_BASE}/downloads/:product_id`,
  operationId: 'download',
  summary:
    "The package file of the product's latest version, as the Download API Access setting " +
    'allows (spec 4.5). Refusals are JSON errors and are logged with the reason.',
  tag: 'Downloads',
  access: 'public',
  params: ProductPath,
  query: DownloadQuery,
  headers: DownloadHeaders,
  ...answers,
  before: ({ rateLimits }) => [rateLimits.downloads],
  handle: ({ params, query, headers }, deps, req, res) =>
    serve({ product_id: params.product_id, ...query, file: null }, headers, deps, req, res),
});

/** A desktop updater sends its feed's headers with the download too (electron-updater). */
const PinnedFileHeaders = DownloadHeaders.extend({
  Authorization: FeedHeaders.shape.Authorization,
});

/**
 * `GET {api_base}/downloads/{product_id}/files/{file_id}/{filename}`: the file an updater's feed
 * listed (docs/updaters.md), under the same access rules as the download of spec 4.5. The URL
 * carries no key and ends with the file's name, which Joomla's installer saves it under; a
 * feed's checksum names exactly this file. The key may come as `Authorization: License <key>`,
 * as it does for the feed.
 */
export const pinnedFileDownloadRoute: Route<GatewayDeps> = defineRoute({
  method: 'get',
  path: `${API_BASE}/downloads/:product_id/files/:file_id/:filename`,
  operationId: 'downloadFile',
  summary:
    'A package file a feed listed, as the Download API Access setting allows (spec 4.5): a ' +
    "file of a published version, for every plan or for the license's.",
  tag: 'Downloads',
  access: 'public',
  params: PinnedFilePath,
  query: DownloadQuery,
  headers: PinnedFileHeaders,
  ...answers,
  before: ({ rateLimits }) => [rateLimits.downloads],
  handle: ({ params, query, headers }, deps, req, res) => {
    const { license_key } = feedCaller(
      { license_key: query.license_key ?? undefined },
      { Authorization: headers.Authorization },
    );
    return serve(
      {
        product_id: params.product_id,
        ...query,
        license_key,
        file: { id: params.file_id, filename: params.filename },
      },
      headers,
      deps,
      req,
      res,
    );
  },
});
