import { mkdtempSync } from 'node:fs';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_PORT, type Config, type ConfigVariable } from '../../../libs/config/index.js';
import {
  emlFileMailer,
  smtpMailer,
  type Mailer,
  type MailSender,
  type StartLog,
} from './mailer.js';

/**
 * The buyer's e-mail's settings (README: Configuration; docs/stores.md: The buyer's e-mail),
 * read from the one configuration. The stores process declares these among the settings it reads.
 */
export const buyerMailSettings = [
  'SMTP_URL',
  'MAIL_FROM',
  'STORE_NAME',
  'PUBLIC_URL',
  'DATA_DIR',
] as const satisfies readonly ConfigVariable[];

export type MailConfig = Pick<Config, (typeof buyerMailSettings)[number]>;

/**
 * The store a message speaks for. STORE_NAME is the portal's too, where empty means "name no
 * store"; a letter has to be signed by someone, so it is signed with this.
 */
export const DEFAULT_MAIL_STORE_NAME = 'Software Store';

export function mailStoreName(config: Pick<Config, 'STORE_NAME'>): string {
  return config.STORE_NAME === '' ? DEFAULT_MAIL_STORE_NAME : config.STORE_NAME;
}

/** The host the service is reached at, for `no-reply@`: PUBLIC_URL's name, else localhost. */
function mailHost(publicUrl: string | undefined): string {
  if (publicUrl === undefined) return 'localhost';
  const host = new URL(publicUrl).hostname.replace(/^\[|\]$/g, '');
  return isIP(host) === 0 ? host : 'localhost';
}

/** MAIL_FROM, else the store's name at `no-reply@` the service's host. */
export function mailSender(
  config: Pick<Config, 'MAIL_FROM' | 'STORE_NAME' | 'PUBLIC_URL'>,
): MailSender {
  if (config.MAIL_FROM !== '') return config.MAIL_FROM;
  return { name: mailStoreName(config), address: `no-reply@${mailHost(config.PUBLIC_URL)}` };
}

/**
 * The customer portal's page, where the buyer enters their key: `{PUBLIC_URL}/portal`, or the
 * gateway's default address when PUBLIC_URL is unset (`npm start`).
 */
export function portalPageUrl(config: Pick<Config, 'PUBLIC_URL'>): string {
  // The stores service does not know where the gateway listens: without PUBLIC_URL, its default.
  const base = config.PUBLIC_URL ?? `http://localhost:${DEFAULT_PORT}`;
  return `${base.replace(/\/+$/, '')}/portal`;
}

/** Where the `.eml` files go: DATA_DIR/mail, or a new temporary directory when DATA_DIR is empty. */
export function mailDirectory(config: Pick<Config, 'DATA_DIR'>): string {
  return config.DATA_DIR === ''
    ? mkdtempSync(path.join(tmpdir(), 'licensing-mail-'))
    : path.resolve(config.DATA_DIR, 'mail');
}

/** The mailer the settings name: SMTP with SMTP_URL, else `.eml` files (said once, in the log). */
export function buyerMailer(config: MailConfig, logger: StartLog): Mailer {
  const from = mailSender(config);
  return config.SMTP_URL !== undefined
    ? smtpMailer({ url: config.SMTP_URL, from })
    : emlFileMailer({ directory: mailDirectory(config), from, logger });
}
