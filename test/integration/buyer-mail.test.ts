import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { loadConfig } from '../../libs/config/index.js';
import { createLogger } from '../../libs/logging/index.js';
import { buyerMessage, type BuyerMessageInput } from '../../services/stores/mail/buyer-messages.js';
import {
  buyerMailer,
  mailSender,
  portalPageUrl,
} from '../../services/stores/mail/mail-settings.js';
import { smtpMailer } from '../../services/stores/mail/mailer.js';
import { sendWithRetries } from '../../services/stores/mail/sending.js';
import { mimeBodies, mimeHeader } from '../support/mime-message.js';

/** docs/stores.md: The buyer's e-mail, sent through a real SMTP exchange and written to files. */

const KEY = 'GALR-7Q2W-K9XZ-4MNB';
const config = loadConfig({
  STORE_NAME: 'Plugin Shop',
  PUBLIC_URL: 'https://licensing.shop.example',
  MAIL_FROM: 'Plugin Shop <sales@shop.example>',
});
const input: BuyerMessageInput = {
  storeName: config.STORE_NAME,
  buyer: { email: 'ann@buyer.example', name: 'Ann Buyer' },
  licenseKey: KEY,
  productName: 'Galería Pro',
  plan: { name: 'Agency', activationLimit: 0, activationType: 'domain', entitlements: [] },
  expiresAt: null,
  portalUrl: portalPageUrl(config),
};
const message = buyerMessage('created', input);
const noWait = { attempts: 2, backoff: () => 0, sleep: async () => {} };

function listening(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

describe('through SMTP (SMTP_URL)', () => {
  const received: Array<{ from: string; to: string[]; raw: string }> = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  let port = 0;
  beforeAll(async () => {
    port = await listening(smtp.server);
  });
  afterAll(() => new Promise<void>((resolve) => smtp.close(() => resolve())));

  test('the server receives the message: its key, subject, sender, recipient and portal link', async () => {
    const mailer = smtpMailer({ url: `smtp://127.0.0.1:${port}`, from: mailSender(config) });
    const outcome = await sendWithRetries(mailer, message, noWait);
    expect(outcome).toMatchObject({ outcome: 'sent', attempts: 1 });
    expect(received).toHaveLength(1);
    const [{ from, to, raw }] = received as [(typeof received)[number]];
    expect(from).toBe('sales@shop.example');
    expect(to).toEqual(['ann@buyer.example']);
    expect(mimeHeader(raw, 'Subject')).toBe('Your license key for Galería Pro (Plugin Shop)');
    expect(mimeHeader(raw, 'From')).toBe('Plugin Shop <sales@shop.example>');
    expect(mimeHeader(raw, 'Message-ID')).toBe(outcome.outcome === 'sent' && outcome.messageId);
    const bodies = mimeBodies(raw);
    expect(bodies['text/plain']).toBe(message.text);
    expect(bodies['text/html']).toBe(message.html);
    expect(bodies['text/plain']).toContain(`License key: ${KEY}`);
    expect(bodies['text/plain']).toContain('https://licensing.shop.example/portal');
  });
});

describe('an SMTP server that never answers', () => {
  const sockets = new Set<Socket>();
  const silent = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  let port = 0;
  beforeAll(async () => {
    port = await listening(silent);
  });
  afterAll(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  test('gives a failed outcome once its greeting timeout passes, each attempt, never a hang', async () => {
    const mailer = smtpMailer({
      url: `smtp://127.0.0.1:${port}`,
      from: mailSender(config),
      // The socket's idle timeout well after the greeting's: at the same 300 ms either could
      // fire first on a loaded machine, and it is the greeting's that is checked here.
      timeouts: { connectionMs: 300, greetingMs: 300, socketMs: 5_000 },
    });
    const outcome = await sendWithRetries(mailer, message, noWait);
    expect(outcome).toEqual({
      outcome: 'failed',
      error: expect.stringMatching(/greeting/i),
      attempts: 2,
    });
    // The bound keeps a mailer that ignores its timeouts from passing: two attempts of its
    // default 10 s greeting timeout would not fit.
  }, 15_000);
});

describe('without SMTP_URL: .eml files under DATA_DIR/mail', () => {
  let dataDir = '';
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'buyer-mail-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  test('each message is a file holding the key, readable by the service alone', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const destination = { write: (line: string) => void lines.push(JSON.parse(line)) };
    const logger = createLogger('stores', { level: 'info', format: 'json', destination });
    const mailer = buyerMailer({ ...config, DATA_DIR: dataDir }, logger);
    const first = await sendWithRetries(mailer, message, noWait);
    const second = await sendWithRetries(mailer, buyerMessage('renewed', input), noWait);
    expect([first.outcome, second.outcome]).toEqual(['sent', 'sent']);

    const directory = path.join(dataDir, 'mail');
    const files = readdirSync(directory).sort();
    expect(files).toHaveLength(2);
    for (const file of files) {
      expect(file).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z-[A-Za-z0-9._@-]+\.eml$/);
      expect(statSync(path.join(directory, file)).mode & 0o777).toBe(0o600);
    }
    expect(statSync(directory).mode & 0o777).toBe(0o700);
    const raw = readFileSync(path.join(directory, files[0]!), 'utf8');
    expect(mimeBodies(raw)['text/plain']).toContain(`License key: ${KEY}`);
    expect(mimeHeader(raw, 'To')).toBe('ann@buyer.example');
    expect(mimeHeader(raw, 'Message-ID')).toBe(first.outcome === 'sent' && first.messageId);

    // Said once, when the mailer was made, with the directory: not once per message.
    expect(lines).toEqual([
      expect.objectContaining({ directory, msg: expect.stringMatching(/SMTP_URL is unset/) }),
    ]);
  });

  test('MAIL_FROM unset: from the store name at no-reply@ the public host', async () => {
    const logger = { info: () => {} };
    const unsetFrom = { ...config, MAIL_FROM: '', DATA_DIR: dataDir };
    await sendWithRetries(buyerMailer(unsetFrom, logger), message, noWait);
    const [file] = readdirSync(path.join(dataDir, 'mail'));
    const raw = readFileSync(path.join(dataDir, 'mail', file!), 'utf8');
    expect(mimeHeader(raw, 'From')).toBe('Plugin Shop <no-reply@licensing.shop.example>');
  });
});
