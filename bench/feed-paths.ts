/**
 * The updaters' feeds under load (docs/updaters.md), each keyed as its updater sends it, beside
 * the JSON update check of the same key (`update-key`): the report compares their project CPU per
 * request with it (FEED_COMPARISONS).
 */
import type { Fixture } from './fixture.js';
import type { LoadRequest } from './load-protocol.js';
import { API_BASE } from '../libs/contracts/api-base.js';

export const FEED_PATH_KEYS = [
  'feed-joomla',
  'feed-wordpress',
  'feed-edd',
  'feed-electron',
  'feed-sparkle',
  'feed-tauri',
  'feed-304',
] as const;
export type FeedPathKey = (typeof FEED_PATH_KEYS)[number];

/** A feed row: a gateway path of paths.ts's `BenchPath` shape, under one of the keys above. */
interface FeedBenchPath {
  key: FeedPathKey;
  name: string;
  target: 'gateway';
  expectedStatus: number;
  requests(): Promise<LoadRequest[]>;
}

const get = (path: string, headers: Record<string, string> = {}) => ({
  method: 'GET' as const,
  path: `${API_BASE}${path}`,
  headers,
});

/** The current ETag of a feed, read once before the `304` row runs. */
async function etagOf(gatewayUrl: string, path: string): Promise<string> {
  const res = await fetch(`${gatewayUrl}${API_BASE}${path}`, {
    signal: AbortSignal.timeout(15_000),
  });
  await res.arrayBuffer();
  const etag = res.headers.get('etag');
  if (res.status !== 200 || etag === null) {
    throw new Error(`${path}: HTTP ${res.status} without an ETag`);
  }
  return etag;
}

export function feedPaths(fixture: Fixture, gatewayUrl: string): Array<FeedBenchPath> {
  const id = fixture.productId;
  const key = encodeURIComponent(fixture.licenseKey);
  const joomla = `/updates/${id}/joomla.xml?dlid=${key}`;
  const row = (
    rowKey: FeedPathKey,
    name: string,
    path: string,
    expectedStatus = 200,
  ): FeedBenchPath => ({
    key: rowKey,
    name,
    target: 'gateway',
    expectedStatus,
    requests: async () => [get(path)],
  });
  return [
    row('feed-joomla', 'Joomla update stream (with license key)', joomla),
    row(
      'feed-wordpress',
      'plugin-update-checker JSON (with license key)',
      `/updates/${id}/wordpress.json?license_key=${key}`,
    ),
    row(
      'feed-edd',
      'EDD get_version (with license key)',
      `/edd?edd_action=get_version&item_id=${id}&license=${key}`,
    ),
    row(
      'feed-electron',
      'electron-updater latest.yml (with license key)',
      `/updates/${id}/electron/latest.yml?license_key=${key}`,
    ),
    row(
      'feed-sparkle',
      'Sparkle appcast (with license key)',
      `/updates/${id}/appcast.xml?license_key=${key}`,
    ),
    row(
      'feed-tauri',
      'Tauri update (with license key)',
      `/updates/${id}/tauri/linux/x86_64/0.0.1?license_key=${key}`,
    ),
    {
      key: 'feed-304',
      name: 'Joomla update stream, 304 to If-None-Match (with license key)',
      target: 'gateway',
      expectedStatus: 304,
      requests: async () => [get(joomla, { 'if-none-match': await etagOf(gatewayUrl, joomla) })],
    },
  ];
}

/** Each feed row's CPU per request beside the JSON update check with the same key. */
export const FEED_COMPARISONS: ReadonlyArray<[FeedPathKey, 'update-key']> = FEED_PATH_KEYS.map(
  (feed) => [feed, 'update-key'],
);
