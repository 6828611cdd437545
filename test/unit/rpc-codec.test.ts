import { LicensingError } from '../../libs/contracts/index.js';
import { createLogger } from '../../libs/logging/index.js';
import { decodeReply, dispatch, encodeRequest } from '../../libs/transport/codec.js';

const logger = createLogger('test', 'silent');
const health = async () => ({ service: 'download', status: 'ok' as const, uptime_seconds: 1 });

async function replyError(text: string, handlers = {}) {
  const reply = await dispatch(handlers, text, logger);
  try {
    decodeReply('download.health', reply);
  } catch (error) {
    return error as LicensingError;
  }
  throw new Error('expected an error reply');
}

describe('RPC wire format (libs/transport/codec)', () => {
  test('a request and its reply round-trip as JSON', async () => {
    const reply = await dispatch(
      { 'download.health': health },
      encodeRequest('download.health', {}),
      logger,
    );
    expect(decodeReply('download.health', reply)).toEqual({
      service: 'download',
      status: 'ok',
      uptime_seconds: 1,
    });
  });

  test('a request that is not JSON is refused with INVALID_REQUEST', async () => {
    expect((await replyError('{not json')).code).toBe('INVALID_REQUEST');
  });

  test('an unknown method is refused with INVALID_REQUEST', async () => {
    expect((await replyError(JSON.stringify({ method: 'nope.nothing', request: {} }))).code).toBe(
      'INVALID_REQUEST',
    );
  });

  test('a request that does not match its contract is refused and never reaches the handler', async () => {
    let called = false;
    const handlers = {
      'license.validate': async () => {
        called = true;
        return {};
      },
    };
    const text = JSON.stringify({
      method: 'license.validate',
      request: { license_key: { $ne: 'x' }, identifier: null, product_id: null, ip: '' },
    });
    const reply = JSON.parse(await dispatch(handlers, text, logger));
    expect(reply.error.code).toBe('INVALID_REQUEST');
    expect(reply.error.message).toMatch(/license_key/);
    expect(called).toBe(false);
  });

  test('a LicensingError travels with its code, status and details', async () => {
    const handlers = {
      'download.health': async () => {
        throw new LicensingError('ACTIVATION_LIMIT_REACHED', 'full', {
          details: { activation_limit: 2, activations_used: 2 },
        });
      },
    };
    const error = await replyError(encodeRequest('download.health', {}), handlers);
    expect(error).toBeInstanceOf(LicensingError);
    expect(error.toBody()).toEqual({
      error: {
        code: 'ACTIVATION_LIMIT_REACHED',
        message: 'full',
        activation_limit: 2,
        activations_used: 2,
      },
    });
    expect(error.status).toBe(403);
  });

  test('an unexpected failure becomes INTERNAL_ERROR without leaking its message', async () => {
    const handlers = {
      'download.health': async () => {
        throw new Error('secret database detail');
      },
    };
    const error = await replyError(encodeRequest('download.health', {}), handlers);
    expect(error.code).toBe('INTERNAL_ERROR');
    expect(error.status).toBe(500);
    expect(error.message).not.toMatch(/secret/);
  });

  test('a reply that does not match the contract is an INTERNAL_ERROR for the caller', () => {
    expect(() =>
      decodeReply('download.health', JSON.stringify({ ok: true, result: { service: 1 } })),
    ).toThrow(expect.objectContaining({ code: 'INTERNAL_ERROR' }));
    expect(() => decodeReply('download.health', 'garbage')).toThrow(
      expect.objectContaining({ code: 'INTERNAL_ERROR' }),
    );
  });
});
