import type { ActivationType } from '../../../../../libs/contracts/index.js';

/** How the API normalises an identifier of each type (spec 2.4), said before it happens. */
export const NORMALISATION: Record<ActivationType, string> = {
  domain:
    'A website: scheme, www., port and path are dropped (https://www.Shop.example/cart is shop.example).',
  device: 'A device: spaces around it are dropped.',
  seat: 'A user, by e-mail address: lowercased.',
  instance: 'A server or container instance: spaces around it are dropped.',
};
