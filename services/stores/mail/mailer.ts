import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer, { type SendMailOptions } from 'nodemailer';

/**
 * Where the buyer's e-mail goes (docs/stores.md: The buyer's e-mail): to an SMTP server
 * (SMTP_URL), or, without one, into `.eml` files a person can open, so that nothing is lost and
 * nothing needs a mail server to try the service.
 */

/** One message, as a mailer sends it: the sender is the mailer's own (MAIL_FROM). */
export interface MailMessage {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<{ messageId: string }>;
}

/** Where the `.eml` mailer says, once, where mail goes: the process's logger. */
export interface StartLog {
  info(fields: object, message: string): void;
}

/** An address, or a name and an address (encoded by nodemailer, whatever the name holds). */
export type MailSender = string | { readonly name: string; readonly address: string };

/** The longest each step of an SMTP exchange may take, so that no send hangs. */
export interface SmtpTimeouts {
  /** To open the connection. */
  readonly connectionMs: number;
  /** From connected to the server's greeting. */
  readonly greetingMs: number;
  /** Of silence on an open connection, at any step. */
  readonly socketMs: number;
}

export const DEFAULT_SMTP_TIMEOUTS: SmtpTimeouts = {
  connectionMs: 10_000,
  greetingMs: 10_000,
  socketMs: 30_000,
};

/** Quoted-printable: a line of the text stays readable in the raw message. */
const TEXT_ENCODING = 'quoted-printable' as const;

function composed(from: MailSender, message: MailMessage): SendMailOptions {
  const { to, subject, text, html } = message;
  return { from: toAddress(from), to, subject, text, html, textEncoding: TEXT_ENCODING };
}

function toAddress(from: MailSender): { name: string; address: string } {
  if (typeof from !== 'string') return { name: from.name, address: from.address };
  const match = /^(.*?)\s*<([^<>]+)>$/.exec(from);
  return match ? { name: match[1]!.trim(), address: match[2]! } : { name: '', address: from };
}

/** Sends through the SMTP server of `url` (`smtp://` or `smtps://`, credentials in it). */
export function smtpMailer(options: {
  readonly url: string;
  readonly from: MailSender;
  readonly timeouts?: SmtpTimeouts;
}): Mailer {
  const timeouts = options.timeouts ?? DEFAULT_SMTP_TIMEOUTS;
  const transport = nodemailer.createTransport({
    url: options.url,
    connectionTimeout: timeouts.connectionMs,
    greetingTimeout: timeouts.greetingMs,
    socketTimeout: timeouts.socketMs,
    dnsTimeout: timeouts.connectionMs,
  });
  return {
    async send(message) {
      const info = await transport.sendMail(composed(options.from, message));
      return { messageId: info.messageId };
    },
  };
}

/** `2026-11-28T14-05-01-123Z-<id>.eml`: sorted by time, one file per message, a safe name. */
export function emlFileName(at: Date, messageId: string): string {
  const time = at.toISOString().replace(/:/g, '-').replace('.', '-');
  const id = messageId.replace(/^<|>$/g, '').replace(/[^A-Za-z0-9._@-]/g, '_');
  return `${time}-${id}.eml`;
}

/**
 * Writes each message, as it would be sent (RFC 5322, CRLF lines), to a file of its own in
 * `directory`: the directory readable by the service's user alone (0700), each file too (0600),
 * since each holds a license key. Says once, when made, that mail goes to files, and where.
 */
export function emlFileMailer(options: {
  readonly directory: string;
  readonly from: MailSender;
  readonly logger: StartLog;
  readonly now?: () => Date;
}): Mailer {
  const { directory, from, logger, now = () => new Date() } = options;
  const transport = nodemailer.createTransport({
    streamTransport: true,
    buffer: true,
    newline: 'windows',
  });
  logger.info(
    { directory },
    "SMTP_URL is unset: the buyer's e-mail is written to .eml files in this directory",
  );
  return {
    async send(message) {
      const info = await transport.sendMail(composed(from, message));
      await mkdir(directory, { recursive: true, mode: 0o700 });
      await chmod(directory, 0o700);
      const file = path.join(directory, emlFileName(now(), info.messageId));
      // `wx`: a file already there is never overwritten.
      await writeFile(file, info.message as Buffer, { mode: 0o600, flag: 'wx' });
      return { messageId: info.messageId };
    },
  };
}
