import {
  LicensingError,
  issueMessage,
  rpcMethods,
  type CallContext,
  type HandlersOf,
} from '../../libs/contracts/index.js';
import { createLogger } from '../../libs/logging/index.js';
import {
  DeadlineContext,
  decodeReply,
  dispatch,
  encodeRequest,
} from '../../libs/transport/codec.js';
import { InProcessBus, InProcessTransport } from '../../libs/transport/index.js';

const logger = createLogger('test', 'silent');
const health = async () => ({ service: 'download', status: 'ok' as const, uptime_seconds: 1 });
/** A deadline no test reaches. */
const later = () => Date.now() + 60_000;
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const CALL_ID = '6c1b7a52-0d3e-4f4e-9b1a-2f7c3d5e8a90';

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
      encodeRequest('download.health', {}, later(), CALL_ID),
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
      deadline: later(),
      request: { license_key: { $ne: 'x' }, identifier: null, product_id: null, ip: '' },
    });
    const reply = JSON.parse(await dispatch(handlers, text, logger));
    expect(reply.error.code).toBe('INVALID_REQUEST');
    expect(reply.error.message).toMatch(/license_key/);
    expect(called).toBe(false);
  });

  test("a refused request's message names the field as every INVALID_REQUEST does (issueMessage)", async () => {
    const text = JSON.stringify({
      method: 'license.validate',
      deadline: later(),
      request: { license_key: 7, identifier: null, product_id: null, ip: '' },
    });
    const handlers = { 'license.validate': async () => ({}) };
    const reply = JSON.parse(await dispatch(handlers, text, logger));
    const parsed = rpcMethods['license.validate'].request.safeParse({
      license_key: 7,
      identifier: null,
      product_id: null,
      ip: '',
    });
    expect(parsed.success).toBe(false);
    expect(reply.error.message).toBe(issueMessage(parsed.error?.issues[0], 'request'));
    expect(reply.error.message).toMatch(/^license_key: [a-z]/);
  });

  test('a LicensingError travels with its code, status and details', async () => {
    const handlers = {
      'download.health': async () => {
        throw new LicensingError('ACTIVATION_LIMIT_REACHED', 'full', {
          details: { activation_limit: 2, activations_used: 2 },
        });
      },
    };
    const error = await replyError(
      encodeRequest('download.health', {}, later(), CALL_ID),
      handlers,
    );
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
    const error = await replyError(
      encodeRequest('download.health', {}, later(), CALL_ID),
      handlers,
    );
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

describe('RPC call ids (libs/transport/codec)', () => {
  /** The call ids the handler was given, one per dispatch of `texts`. */
  async function callIdsSeen(texts: string[]): Promise<string[]> {
    const seen: string[] = [];
    const handlers = {
      'download.health': async (_request: unknown, context: CallContext) => {
        seen.push(context.callId);
        return health();
      },
    };
    for (const text of texts) await dispatch(handlers, text, logger);
    return seen;
  }

  test('a request delivered twice hands its handler the same call id both times', async () => {
    const text = encodeRequest('download.health', {}, later(), CALL_ID);
    expect(await callIdsSeen([text, text])).toEqual([CALL_ID, CALL_ID]);
  });

  test.each([
    ['no call id', undefined],
    ['a call id that is not text', 42],
    ['a call id with spaces', 'two words'],
  ])('a request with %s is answered, under an id of its own per delivery', async (_, callId) => {
    const text = JSON.stringify({
      method: 'download.health',
      deadline: later(),
      call_id: callId,
      request: {},
    });
    const [first, second] = await callIdsSeen([text, text]);
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(second).toMatch(/^[0-9a-f-]{36}$/);
    expect(first).not.toBe(second);
  });

  test('each call of a transport has an id of its own', async () => {
    const bus = new InProcessBus();
    const server = new InProcessTransport(bus, { timeoutMs: 1000, logger });
    const client = new InProcessTransport(bus, { timeoutMs: 1000, logger });
    const seen: string[] = [];
    await server.serve('download', {
      'download.health': async (_request: unknown, context: CallContext) => {
        seen.push(context.callId);
        return health();
      },
    } as Partial<HandlersOf<'download'>> as HandlersOf<'download'>);
    await client.call('download.health', {});
    await client.call('download.health', {});
    expect(new Set(seen).size).toBe(2);
    await Promise.all([server.close(), client.close()]);
  });
});

describe('RPC deadlines (libs/transport/codec)', () => {
  test('every request envelope carries the deadline it was given', () => {
    const deadline = Date.UTC(2030, 0, 1);
    expect(JSON.parse(encodeRequest('download.health', {}, deadline, CALL_ID))).toEqual({
      method: 'download.health',
      deadline,
      call_id: CALL_ID,
      request: {},
    });
  });

  test("a call's deadline is the moment its timeout fires (transport default or per call)", async () => {
    const bus = new InProcessBus();
    const server = new InProcessTransport(bus, { timeoutMs: 1000, logger });
    const client = new InProcessTransport(bus, { timeoutMs: 4000, logger });
    const seen: number[] = [];
    await server.serve('download', {
      'download.health': async (_request: unknown, context: CallContext) => {
        seen.push(context.deadline);
        return health();
      },
    } as Partial<HandlersOf<'download'>> as HandlersOf<'download'>);
    for (const [options, timeoutMs] of [
      [undefined, 4000],
      [{ timeoutMs: 700 }, 700],
    ] as const) {
      const before = Date.now();
      await client.call('download.health', {}, options);
      const after = Date.now();
      const deadline = seen.pop();
      expect(deadline).toBeGreaterThanOrEqual(before + timeoutMs);
      expect(deadline).toBeLessThanOrEqual(after + timeoutMs);
    }
    await Promise.all([server.close(), client.close()]);
  });

  test('a request that arrives after its deadline is not handed to its handler', async () => {
    let called = false;
    const handlers = {
      'download.health': async () => {
        called = true;
        return health();
      },
    };
    const error = await replyError(
      encodeRequest('download.health', {}, Date.now() - 1, CALL_ID),
      handlers,
    );
    expect(error.code).toBe('INTERNAL_ERROR');
    expect(error.message).toMatch(/stopped waiting/);
    expect(called).toBe(false);
  });

  test('the warning about a request that arrived late names the request', async () => {
    const lines: string[] = [];
    const capturing = createLogger('test', {
      level: 'warn',
      format: 'json',
      destination: { write: (line: string) => void lines.push(line) },
    });
    const text = JSON.stringify({
      method: 'download.health',
      deadline: Date.now() - 1,
      request_id: 'req-late-1',
      request: {},
    });
    await dispatch({ 'download.health': async () => health() }, text, capturing);
    const warning = lines.map((line) => JSON.parse(line)).find((line) => /deadline/.test(line.msg));
    expect(warning).toMatchObject({ request_id: 'req-late-1', method: 'download.health' });
  });

  test.each([
    ['no deadline', { method: 'download.health', request: {} }],
    [
      'a deadline that is text',
      { method: 'download.health', deadline: '1893456000000', request: {} },
    ],
    [
      'a deadline that is not an integer',
      { method: 'download.health', deadline: 1.5e12 + 0.5, request: {} },
    ],
    ['a negative deadline', { method: 'download.health', deadline: -1, request: {} }],
    ['a null deadline', { method: 'download.health', deadline: null, request: {} }],
  ])(
    'a request with %s is malformed (INVALID_REQUEST) and never reaches its handler',
    async (_, envelope) => {
      let called = false;
      const handlers = {
        'download.health': async () => {
          called = true;
          return health();
        },
      };
      const error = await replyError(JSON.stringify(envelope), handlers);
      expect(error.code).toBe('INVALID_REQUEST');
      expect(error.message).toMatch(/deadline/);
      expect(called).toBe(false);
    },
  );

  test('beforeWrite passes before the deadline and throws INTERNAL_ERROR from the deadline on', () => {
    let now = 1_000;
    const context = new DeadlineContext('license.activate', 2_000, CALL_ID, () => now);
    expect(context.deadline).toBe(2_000);
    expect(() => context.beforeWrite()).not.toThrow();
    now = 1_999;
    expect(() => context.beforeWrite()).not.toThrow();
    now = 2_000;
    expect(() => context.beforeWrite()).toThrow(
      expect.objectContaining({ code: 'INTERNAL_ERROR', status: 500 }),
    );
    now = 5_000;
    expect(() => context.beforeWrite()).toThrow(LicensingError);
  });

  test('a handler that reaches its write after the deadline does not write, and its caller gets INTERNAL_ERROR', async () => {
    let checkedInTime = false;
    let wrote = false;
    const handlers = {
      'download.health': async (_request: unknown, context: CallContext) => {
        context.beforeWrite();
        checkedInTime = true;
        // The database stalls past the deadline between the handler's read and its write.
        await delay(context.deadline - Date.now() + 20);
        context.beforeWrite();
        wrote = true;
        return health();
      },
    };
    const error = await replyError(
      encodeRequest('download.health', {}, Date.now() + 100, CALL_ID),
      handlers,
    );
    expect(checkedInTime).toBe(true);
    expect(wrote).toBe(false);
    expect(error.code).toBe('INTERNAL_ERROR');
    expect(error.message).toMatch(/stopped waiting/);
  });
});
