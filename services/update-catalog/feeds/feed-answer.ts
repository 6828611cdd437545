import { createHash } from 'node:crypto';
import type { FeedAnswer } from '../../../libs/contracts/index.js';

/** A feed rendered: its media type and body, or nothing to offer (Tauri's 204). */
export type RenderedFeed = { content_type: string; body: string } | { status: 204 };

/** A strong ETag of the body: the same feed for the same caller is the same bytes. */
export function etagOf(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/**
 * RFC 9110 13.1.2: If-None-Match names the current ETag (weakly compared), or is `*`; then the
 * caller's copy is current and the answer is 304 without a body.
 */
export function matchesNoneMatch(ifNoneMatch: string | null, etag: string): boolean {
  if (ifNoneMatch === null) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => opaque(tag) === opaque(etag));
}

export function feedAnswer(rendered: RenderedFeed, ifNoneMatch: string | null): FeedAnswer {
  if ('status' in rendered) return rendered;
  const etag = etagOf(rendered.body);
  if (matchesNoneMatch(ifNoneMatch, etag)) return { status: 304, etag };
  return { status: 200, content_type: rendered.content_type, body: rendered.body, etag };
}
