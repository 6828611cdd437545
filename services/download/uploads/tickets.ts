import { createHmac, timingSafeEqual } from 'node:crypto';

/** What an upload URL lets its holder write: one new object. */
export interface UploadTicket {
  kind: 'upload';
  key: string;
}

export type Ticket = UploadTicket;
type Signed<T> = T & { exp: number };

const b64 = (data: Buffer | string) => Buffer.from(data).toString('base64url');

/**
 * Short-lived capabilities for the download service's HTTP port (docs/architecture.md): the
 * payload and its expiry, signed with HMAC-SHA256 under DOWNLOAD_SIGNING_KEY, so any replica can
 * check a ticket another issued, and nobody without the key can forge or extend one.
 */
export class TicketSigner {
  private readonly key: Buffer;

  constructor(
    secret: string,
    private readonly clock: () => number = Date.now,
  ) {
    if (secret.length < 16) throw new Error('DOWNLOAD_SIGNING_KEY must be at least 16 characters.');
    this.key = Buffer.from(secret, 'utf8');
  }

  private mac(payload: string): Buffer {
    return createHmac('sha256', this.key).update(`ticket.v1.${payload}`).digest();
  }

  issue(ticket: Ticket, ttlMs: number): string {
    const payload = b64(JSON.stringify({ ...ticket, exp: this.clock() + ttlMs }));
    return `${payload}.${b64(this.mac(payload))}`;
  }

  /** The ticket, or null when it is malformed, forged, expired or of another kind. */
  verify<K extends Ticket['kind']>(token: string, kind: K): Extract<Ticket, { kind: K }> | null {
    const dot = token.lastIndexOf('.');
    if (dot <= 0 || token.length > 8192) return null;
    const payload = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1), 'base64url');
    const expected = this.mac(payload);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    let ticket: Signed<Ticket>;
    try {
      ticket = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Signed<Ticket>;
    } catch {
      return null;
    }
    if (ticket.kind !== kind || typeof ticket.exp !== 'number' || ticket.exp <= this.clock()) {
      return null;
    }
    return ticket as unknown as Extract<Ticket, { kind: K }>;
  }
}
