import type { Config } from '../../libs/config/index.js';
import type { Transport } from '../../libs/transport/index.js';
import { paddleStoreApi } from './applying/paddle-store-api.js';
import { rpcStoreLicenses } from './applying/rpc-store-licenses.js';
import { stripeEndpoint, stripeStoreApi } from './applying/stripe-store-api.js';
import {
  buyerMailer,
  mailStoreName,
  portalPageUrl,
  type MailConfig,
} from './mail/mail-settings.js';
import type { StartLog } from './mail/mailer.js';
import { buyerMailThrough } from './mail/rpc-buyer-mail.js';
import type { StorePorts } from './service.js';

/**
 * What the applier runs on in a running system: the license service over RPC, the buyer's
 * e-mail through SMTP_URL (or `.eml` files), Stripe's and Paddle's APIs (at STRIPE_API_URL and
 * PADDLE_API_URL) for what their events leave out; each unless `given` (a test system's fakes).
 */
export function storePortsFromConfig(
  config: MailConfig & Pick<Config, 'PUBLIC_URL' | 'STRIPE_API_URL' | 'PADDLE_API_URL'>,
  transport: Pick<Transport, 'call'>,
  logger: StartLog,
  given: Partial<StorePorts> = {},
): StorePorts {
  return {
    licenses: given.licenses ?? rpcStoreLicenses(transport),
    mail:
      given.mail ??
      buyerMailThrough({
        transport,
        mailer: buyerMailer(config, logger),
        storeName: mailStoreName(config),
        portalUrl: portalPageUrl(config),
      }),
    storeApi: given.storeApi ?? {
      ...stripeStoreApi(stripeEndpoint(config.STRIPE_API_URL)),
      ...paddleStoreApi({ url: config.PADDLE_API_URL }),
    },
  };
}
